/** Three levels (docs/contract.md §11): unit tests of pure rules, integration and end-to-end against the real services. */
const base = {
  // ES-module-only packages (NestJS 12, jose under jwks-rsa) load untransformed through jest's
  // require(esm), which scripts/jest.sh enables.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.spec.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@app/shared(|/.*)$': '<rootDir>/libs/shared/src$1',
    '^@app/worker/(.*)$': '<rootDir>/apps/worker/src/$1',
    '^@app/api/(.*)$': '<rootDir>/apps/api/src/$1',
    '^@test/(.*)$': '<rootDir>/test/$1',
  },
  testEnvironment: 'node',
  resolver: '<rootDir>/test/support/jest-resolver.js',
};

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,bench,scripts,deploy}/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/timeouts.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/timeouts.ts'],
    },
    {
      ...base,
      displayName: 'chaos',
      testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
      globalSetup: '<rootDir>/test/chaos/global-setup.ts',
      globalTeardown: '<rootDir>/test/chaos/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/timeouts.ts'],
    },
  ],
};
