/**
 * Every test and hook of the integration, end-to-end and chaos projects touches the services, and
 * on a cold first run (a JIT-cold Elasticsearch, MySQL filling its buffer pool, Node compiling the
 * app) even light work outlasts Jest's default of 5 s. Jest 30 ignores `testTimeout` in a project's
 * configuration (only the global one applies), so these projects set their default here; tests and
 * hooks that start processes, import, reindex or wait for purges give their own, longer timeouts.
 */
jest.setTimeout(30_000);
