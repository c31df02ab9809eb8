import { partOf, profileParts, type CpuProfile } from './cpu-profile';

const frame = (functionName: string, url = '') => ({
  functionName,
  url,
  scriptId: '0',
  lineNumber: 0,
  columnNumber: 0,
});

describe('partOf', () => {
  it('names a package, a file of the project, a module of Node and native code', () => {
    expect(partOf(frame('f', 'file:///w/node_modules/@nestjs/core/router/x.js'))).toBe('@nestjs/core');
    expect(partOf(frame('f', 'file:///w/node_modules/undici/lib/x.js'))).toBe('undici');
    expect(partOf(frame('f', 'file:///w/dist/apps/api/src/search/active/active-videos.js'))).toBe(
      'apps/api/src/search/active/active-videos',
    );
    expect(partOf(frame('f', 'node:internal/streams/readable'))).toBe('node:internal/streams/readable');
    expect(partOf(frame('writev'))).toBe('native writev');
    expect(partOf(frame('(garbage collector)'))).toBe('(garbage collector)');
  });
});

describe('profileParts', () => {
  // root → fastify handler → our service → mysql2; root → (idle); root → (garbage collector)
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5, 6] },
      { id: 2, callFrame: frame('handle', 'file:///w/node_modules/fastify/x.js'), children: [3] },
      { id: 3, callFrame: frame('search', 'file:///w/dist/apps/api/src/s.js'), children: [4] },
      { id: 4, callFrame: frame('query', 'file:///w/node_modules/mysql2/x.js') },
      { id: 5, callFrame: frame('(idle)') },
      { id: 6, callFrame: frame('(garbage collector)') },
    ],
    startTime: 0,
    endTime: 100,
    // Each sample's time is the delta to the next one.
    samples: [4, 3, 5, 6, 2],
    timeDeltas: [0, 10_000, 20_000, 500_000, 30_000, 0],
  };

  it('shares the busy samples by own code and by what is on the stack, leaving idle time out', () => {
    const { busyMs, parts } = profileParts([profile, profile]);
    // 10 + 20 + 30 ms busy per profile (the idle sample's 500 ms are not), two profiles.
    expect(busyMs).toBeCloseTo(120);
    const of = (name: string) => parts.find((part) => part.part === name)!;
    expect(of('mysql2')).toMatchObject({ self: 10 / 60, total: 10 / 60 });
    expect(of('apps/api/src/s')).toMatchObject({ self: 20 / 60, total: 30 / 60 });
    expect(of('fastify').total).toBeCloseTo(30 / 60);
    expect(of('fastify').self).toBe(0);
    expect(of('(garbage collector)').self).toBeCloseTo(30 / 60);
    expect(parts.map((part) => part.part)).not.toContain('(idle)');
    expect(parts[0]!.part).toBe('(garbage collector)');
  });
});
