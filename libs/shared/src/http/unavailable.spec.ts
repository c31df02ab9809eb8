import { isDependencyUnavailable } from './unavailable';

describe('isDependencyUnavailable', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' }),
    ],
    [
      'a lost MySQL connection inside a TypeORM error',
      { message: 'Query failed', driverError: { code: 'PROTOCOL_CONNECTION_LOST' } },
    ],
    ['an ioredis closed connection', new Error('Connection is closed.')],
    ['a cause chain', new Error('outer', { cause: { code: 'ETIMEDOUT' } })],
    [
      'an AggregateError',
      new AggregateError([new Error('x'), Object.assign(new Error('y'), { code: 'ECONNRESET' })]),
    ],
  ])('recognizes %s', (_name, error) => {
    expect(isDependencyUnavailable(error)).toBe(true);
  });

  it.each([
    ['a plain bug', new TypeError('x is not a function')],
    ['a SQL syntax error', { message: 'bad SQL', driverError: { code: 'ER_PARSE_ERROR' } }],
    ['nothing', undefined],
  ])('does not take %s for an outage', (_name, error) => {
    expect(isDependencyUnavailable(error)).toBe(false);
  });
});
