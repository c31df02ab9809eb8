import { decode } from 'jsonwebtoken';
import { ENTRY, runProcess } from '../support/processes';

/** `npm run cli -- token` as an operator runs it: the token it prints, or why it refused. */
const cliToken = (args: string[], env: Record<string, string> = {}) =>
  runProcess(ENTRY.cli, ['token', ...args], env, [], { timeoutMs: 30_000 });

/**
 * `cli token` signs only what the API accepts (docs/contract.md §3, §9): a subject by the author
 * id rule, and a lifetime within JWT_MAX_LIFETIME. Anything else is refused with the reason, and
 * no token is printed.
 */
describe('cli token', () => {
  it('signs a token for a subject by the rule, U+FFFD and invisible characters included', async () => {
    for (const sub of ['user-1', 'x\uFFFD', 'acc-\u200bx', '\u{1F600}'.repeat(128)]) {
      const result = await cliToken(['--sub', sub, '--ttl', '30d']);
      expect([sub, result.code]).toEqual([sub, 0]);
      const claims = decode(result.output.trim()) as { sub: string; exp: number; iat: number };
      expect(claims.sub).toBe(sub);
      expect(claims.exp - claims.iat).toBe(30 * 86_400);
    }
  }, 60_000);

  it.each([
    ['a tab', 'x\ty'],
    ['a newline', 'x\ny'],
    ['ESC', 'x\u001b[31m'],
    ['DEL', 'x\u007f'],
    ['a C1 control', 'x\u0085'],
    ['only spaces', '   '],
    ['129 characters', 'a'.repeat(129)],
  ])(
    'refuses a subject with %s',
    async (_name, sub) => {
      const result = await cliToken(['--sub', sub]);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/--sub.*must be 1 to 128 characters of well-formed Unicode/s);
      expect(result.output).not.toMatch(/eyJ/);
    },
    30_000,
  );

  it('refuses a --ttl beyond JWT_MAX_LIFETIME, by default 30 days', async () => {
    const result = await cliToken(['--sub', 'user-1', '--ttl', '31d']);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/--ttl of 2678400 s is longer than JWT_MAX_LIFETIME \(2592000 s\)/);
    expect(result.output).not.toMatch(/eyJ|\n\s+at /);
  }, 30_000);

  it('follows JWT_MAX_LIFETIME when it is set', async () => {
    const env = { JWT_MAX_LIFETIME: '3600' };
    expect((await cliToken(['--sub', 'user-1', '--ttl', '1h'], env)).code).toBe(0);
    const refused = await cliToken(['--sub', 'user-1', '--ttl', '61m'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/longer than JWT_MAX_LIFETIME \(3600 s\)/);
  }, 30_000);
});
