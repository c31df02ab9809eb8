import { decode } from 'jsonwebtoken';
import { ENTRY, runProcess } from '../support/processes';

/** `npm run cli -- token` as an operator runs it: the token it prints, or why it refused. */
const cliToken = (args: string[], env: Record<string, string> = {}) =>
  runProcess(ENTRY.cli, ['token', ...args], env, [], { timeoutMs: 30_000 });

/**
 * `cli token` signs only what the API accepts (docs/contract.md §3, §9): a subject by the author
 * id rule,. Anything else is refused with the reason, and
 * no token is printed.
 */
describe('cli token', () => {
  it('signs a token for a subject by the rule, U+FFFD and invisible characters included', async () => {
    for (const sub of ['user-1', 'x\uFFFD', 'acc-\u200bx', '\u{1F600}'.repeat(128)]) {
      const result = await cliToken(['--sub', sub, '--ttl', '7d']);
      expect([sub, result.code]).toEqual([sub, 0]);
      const claims = decode(result.output.trim()) as { sub: string; exp: number; iat: number };
      expect(claims.sub).toBe(sub);
      expect(claims.exp - claims.iat).toBe(7 * 86_400);
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
});
