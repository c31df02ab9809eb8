/**
 * kubernetes-models and its companions (@kubernetes-models/*) export their modules to `import`
 * only, so a CommonJS spec's `require` conditions find nothing in them. Those packages alone are
 * resolved as an import would resolve them; jest then loads them as the ES modules they are
 * (require(esm), which scripts/jest.sh enables). Every other package resolves as before.
 */
const IMPORT_ONLY = /^(kubernetes-models|@kubernetes-models\/[^/]+)(\/|$)/;

module.exports = (request, options) =>
  options.defaultResolver(
    request,
    IMPORT_ONLY.test(request) ? { ...options, conditions: ['import', 'default', 'node'] } : options,
  );
