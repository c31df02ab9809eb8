/** Network-level error codes that mean "the service is not there right now", not "the request is wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
]);

interface ErrorLike {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * True when an error says a backing service (MySQL, Redis, …) could not be reached or is
 * overloaded: the answer is then 503 with Retry-After, never 500. Looks through wrapped errors
 * (TypeORM's driverError, `cause`, AggregateError).
 */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as ErrorLike;
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (
    typeof e.message === 'string' &&
    /Connection is closed|Stream isn't writeable|connect ECONNREFUSED|Pool is closed/i.test(e.message)
  ) {
    return true;
  }
  const nested = [e.driverError, e.cause, ...(Array.isArray(e.errors) ? (e.errors as unknown[]) : [])];
  return nested.some((inner) => isDependencyUnavailable(inner, depth + 1));
}
