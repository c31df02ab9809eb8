import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * The shared library's folders, bottom up (docs/architecture.md, "The layout"). A folder imports
 * only from folders of lower rows; folders of one row know nothing of each other; no folder
 * imports the files that compose them at the library's top (data-source.ts, http-app.ts,
 * infrastructure.module.ts). Adding a folder means adding it to a row here.
 */
const SHARED_LAYERS = [
  ['util'],
  ['ids', 'net', 'redis', 'auth', 'language'],
  ['config'],
  ['logging', 'telemetry', 'database', 'queue', 'storage', 'search', 'http'],
  // The synonym set: its rules compare words as the search does, and its row is MySQL's.
  ['events', 'synonyms'],
  ['video'],
  ['trash', 'catalogue'],
  // An erasure's completion deletes the author's trash operations.
  ['erasure'],
  ['metrics', 'health'],
];
// A folder left out of the rows would be checked by nothing: the lint stops until it has its row.
const unplaced = readdirSync(`${import.meta.dirname}/libs/shared/src`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !SHARED_LAYERS.flat().includes(entry.name))
  .map((entry) => entry.name);
if (unplaced.length > 0) {
  throw new Error(`eslint.config.mjs: give libs/shared/src/{${unplaced.join(',')}} a row in SHARED_LAYERS`);
}

/** Specs are tests: beside the code they check, they may use the fakes (test/fakes) and any layer. */
const SPECS = ['**/*.spec.ts'];
const SHARED_TOP = ['data-source', 'http-app', 'infrastructure\\.module'];

/** An import of one of `names`, relative (any depth) or through the `@app/shared` alias. */
const sharedImport = (names) => `^((\\.\\./)+|@app/shared/)(${names.join('|')})(/|$)`;

/** Neither the library nor an app reaches into the tests, and the library reaches no app. */
const NO_TESTS = {
  regex: '^((\\.\\./)+test/|@test/)',
  message: 'Only tests import the test support and fakes.',
};
const NO_APPS = {
  regex: '^((\\.\\./)+apps/|@app/(api|worker)(/|$))',
  message: 'The shared library depends on no app.',
};

/**
 * The product takes mysql2's promise API through a connection's `.promise()` only: TypeORM calls
 * `.promise()` on every query, which requires mysql2's wrapper module, and Node resolves that
 * `require` from disk each time once `mysql2/promise` loaded the module first (data-source.ts).
 */
const NO_MYSQL2_PROMISE = {
  regex: '^mysql2/promise$',
  allowTypeImports: true,
  message:
    "Use a mysql2 connection's .promise(): loading mysql2/promise slows every TypeORM query (data-source.ts).",
};

/**
 * Redis has one owner, libs/shared/src/redis: only it holds the client (ioredis, `REDIS_CLIENT`)
 * and builds on it, rate-limiter-flexible's Redis limiters included; the others use its
 * operations. Where Redis is (`redisUrls`) is the configuration's too. Two places do more:
 * infrastructure.module.ts provides the client and closes it, and the queue folder, BullMQ's
 * owner, makes BullMQ's connections (`bullConnection`), never the shared client.
 */
const REDIS_OWNED =
  'Only libs/shared/src/redis holds the Redis client: use its operations (RedisRateLimits, RedisScripts, RedisStreams, RedisHealth).';
const NO_IOREDIS = { regex: '^ioredis$', message: REDIS_OWNED };
const NO_REDIS_CLIENT = {
  regex: '(^|/)redis/redis$',
  allowImportNames: ['redisUrls', 'RedisConfig'],
  message: REDIS_OWNED,
};
const NO_REDIS_LIMITER = {
  name: 'rate-limiter-flexible',
  importNames: ['RateLimiterRedis', 'RateLimiterRedisNonAtomic'],
  message: REDIS_OWNED,
};
/** What of Redis a file may not import (`restrictImports`): anywhere, in the owner, in the queue folder, at the top. */
const REDIS_ELSEWHERE = { patterns: [NO_IOREDIS, NO_REDIS_CLIENT], paths: [NO_REDIS_LIMITER] };
const REDIS_BY_FOLDER = {
  redis: { patterns: [], paths: [] },
  queue: {
    patterns: [
      NO_IOREDIS,
      {
        regex: NO_REDIS_CLIENT.regex,
        importNames: ['REDIS_CLIENT', 'createRedisClient'],
        message: REDIS_OWNED,
      },
    ],
    paths: [NO_REDIS_LIMITER],
  },
};
const REDIS_AT_THE_TOP = { patterns: [NO_IOREDIS], paths: [NO_REDIS_LIMITER] };

/** Import rules of the product's code: `patterns`, mysql2's promise API through `.promise()` only, Redis through its owner. */
const restrictImports = (patterns, redis = REDIS_ELSEWHERE) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    { paths: redis.paths, patterns: [...patterns, ...redis.patterns, NO_MYSQL2_PROMISE] },
  ],
});

const sharedLayerRules = SHARED_LAYERS.flatMap((row, level) =>
  row.map((folder) => {
    const above = SHARED_LAYERS.slice(level)
      .flat()
      .filter((other) => other !== folder);
    return {
      files: [`libs/shared/src/${folder}/**/*.ts`],
      ignores: SPECS,
      rules: restrictImports(
        [
          {
            regex: sharedImport([...above, ...SHARED_TOP]),
            message: `libs/shared/src/${folder} imports only folders below it (SHARED_LAYERS in eslint.config.mjs).`,
          },
          NO_APPS,
          NO_TESTS,
        ],
        REDIS_BY_FOLDER[folder],
      ),
    };
  }),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A dropped promise in a worker is a lost job.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
  {
    files: ['libs/shared/src/*.ts'],
    ignores: SPECS,
    rules: restrictImports([NO_APPS, NO_TESTS]),
  },
  {
    files: ['libs/shared/src/infrastructure.module.ts'],
    rules: restrictImports([NO_APPS, NO_TESTS], REDIS_AT_THE_TOP),
  },
  ...sharedLayerRules,
  {
    files: ['apps/api/**/*.ts'],
    ignores: SPECS,
    rules: restrictImports([
      {
        regex: '^((\\.\\./)+worker/|@app/worker(/|$))',
        message: 'The API and the worker share code only through libs/shared.',
      },
      NO_TESTS,
    ]),
  },
  {
    files: ['apps/worker/**/*.ts'],
    ignores: SPECS,
    rules: restrictImports([
      {
        regex: '^((\\.\\./)+api/|@app/api(/|$))',
        message: 'The API and the worker share code only through libs/shared.',
      },
      NO_TESTS,
    ]),
  },
  {
    // The benches reach the apps and the test support through one documented kit
    // (bench/lib/kit.ts, docs/performance.md), so what a bench may touch is listed in one place.
    files: ['bench/**/*.ts'],
    ignores: ['bench/lib/kit.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^((\\.\\./)+(apps|test)/|@app/(worker|api)(/|$)|@test/)',
              message: 'Benches reach the apps and the test support through bench/lib/kit.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // Node runs deploy/ as it is (type stripping), which knows no path aliases; the manifests
    // describe the apps from outside, through the library's names (queues, settings), never their code.
    files: ['deploy/**/*.ts'],
    ignores: SPECS,
    rules: restrictImports([
      {
        regex: '^@app/shared(/|$)',
        message: 'Node runs deploy/ without path aliases: import the library by its relative .ts path.',
      },
      NO_APPS,
      NO_TESTS,
    ]),
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Typed by video-api.ts, which generated-client.test.ts writes from the running API and then
    // type-checks this file against with tsc; before that run the types do not exist.
    files: ['test/e2e/generated-client/calls.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['jest.config.js', 'test/support/jest-resolver.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  prettier,
);
