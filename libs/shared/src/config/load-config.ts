import { configSchema, type AppConfig } from './config.schema';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the environment once at start. An empty variable counts as unset, so a
 * `FOO=` line in a compose file falls back to the default instead of failing on an empty string.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const input = Object.fromEntries(
    Object.keys(configSchema.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}

/** The API cannot authenticate anyone without a key source. */
export function assertAuthConfigured(config: AppConfig): void {
  if (!config.JWT_SECRET && !config.JWT_JWKS_URI) {
    throw new ConfigError(['JWT_SECRET or JWT_JWKS_URI: at least one must be set for the API']);
  }
}

/** Start-up failed: a configuration error names each bad variable (exit 78, EX_CONFIG); anything else exits 1. */
export function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  process.stderr.write(
    `Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
