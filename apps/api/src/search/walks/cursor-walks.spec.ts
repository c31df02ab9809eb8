import { ProblemException } from '@app/shared/http/problem';
import { CursorWalks } from './cursor-walks';
import type { Ranking } from '../engine/search-answers';
import type { SearchCriteria } from '../engine/search-criteria';
import { LostPointInTime, type SearchEngine } from '../engine/search-engine';
import type { Lease, PointInTimeLeases } from './point-in-time-leases';
import type { CursorPosition } from './search-cursor';

/** The leases as Redis keeps them, in a map: one point in time per walk, a ceiling on walks. */
class FakeLeases {
  readonly walks = new Map<string, string>();
  ceiling = Infinity;

  acquire(walk: string): Promise<Lease> {
    const pit = this.walks.get(walk);
    if (pit && pit !== 'opening') return Promise.resolve({ pit });
    if (this.walks.size >= this.ceiling)
      return Promise.reject(new ProblemException(429, 'too many', undefined, { 'Retry-After': '9' }));
    this.walks.set(walk, 'opening');
    return Promise.resolve({ open: true });
  }

  register(walk: string, _caller: string, pit: string): Promise<void> {
    this.walks.set(walk, pit);
    return Promise.resolve();
  }

  release(walk: string, _caller: string, pit: string): Promise<void> {
    if (this.walks.get(walk) === pit) this.walks.delete(walk);
    return Promise.resolve();
  }

  abandon(walk: string): Promise<void> {
    return this.release(walk, '', 'opening');
  }
}

/** The engine's points in time: which are open, which pages were read on which. */
class FakeEngine {
  opened = 0;
  readonly open = new Set<string>();
  readonly readOn: string[] = [];
  /** Whether the page read is the walk's last. */
  last = false;

  openPointInTime(): Promise<string> {
    this.opened += 1;
    const pit = `pit-${this.opened}`;
    this.open.add(pit);
    return Promise.resolve(pit);
  }

  closePointInTime(pit: string): Promise<void> {
    this.open.delete(pit);
    return Promise.resolve();
  }

  follow(
    _criteria: SearchCriteria,
    _position: CursorPosition,
    _limit: number,
    pit: string,
  ): Promise<Ranking> {
    if (!this.open.has(pit)) return Promise.reject(new LostPointInTime());
    this.readOn.push(pit);
    return Promise.resolve({
      hits: [{ id: 'v1', score: 1 }],
      total: 5,
      relation: 'eq',
      corrections: {},
      pit,
      ...(this.last ? {} : { next: { after: [1], lastId: 'v1', corrections: {} } }),
    });
  }
}

const criteria: SearchCriteria = { q: 'okapi', sort: 'relevance' };
const position = (walk: string): CursorPosition => ({
  walk,
  after: [2],
  lastId: 'v0',
  page: 2,
  corrections: {},
});

describe('CursorWalks', () => {
  let engine: FakeEngine;
  let leases: FakeLeases;
  let walks: CursorWalks;

  beforeEach(() => {
    engine = new FakeEngine();
    leases = new FakeLeases();
    walks = new CursorWalks(engine as unknown as SearchEngine, leases as unknown as PointInTimeLeases);
  });

  it('reads every page and every replay of one walk on one point in time', async () => {
    for (let i = 0; i < 50; i += 1) await walks.page(criteria, position('w1'), 10, 'c1');
    expect(engine.opened).toBe(1);
    expect(new Set(engine.readOn)).toEqual(new Set(['pit-1']));
    await walks.page(criteria, position('w2'), 10, 'c1');
    expect(engine.opened).toBe(2);
  });

  it("closes the walk's point in time at its last page and frees its slot", async () => {
    await walks.page(criteria, position('w1'), 10, 'c1');
    engine.last = true;
    await walks.page(criteria, position('w1'), 10, 'c1');
    expect(engine.open.size).toBe(0);
    expect(leases.walks.size).toBe(0);
  });

  it('opens a point in time again, counted, when the walk lost its own (closed, expired, engine restarted)', async () => {
    await walks.page(criteria, position('w1'), 10, 'c1');
    engine.open.clear();
    const page = await walks.page(criteria, position('w1'), 10, 'c1');
    expect(page.hits).toHaveLength(1);
    expect(engine.opened).toBe(2);
    expect(leases.walks.get('w1')).toBe('pit-2');
  });

  it('answers 400 when even the reopened point in time is lost at once', async () => {
    engine.follow = () => Promise.reject(new LostPointInTime());
    await expect(walks.page(criteria, position('w1'), 10, 'c1')).rejects.toMatchObject({ status: 400 });
    expect(leases.walks.size).toBe(0);
  });

  it('opens nothing past a ceiling (429), and frees the slot of an opening that failed', async () => {
    leases.ceiling = 1;
    await walks.page(criteria, position('w1'), 10, 'c1');
    await expect(walks.page(criteria, position('w2'), 10, 'c1')).rejects.toMatchObject({ status: 429 });
    expect(engine.opened).toBe(1);
    leases.ceiling = Infinity;
    engine.openPointInTime = () => Promise.reject(ProblemException.unavailable('Search'));
    await expect(walks.page(criteria, position('w3'), 10, 'c1')).rejects.toMatchObject({ status: 503 });
    expect([...leases.walks.keys()]).toEqual(['w1']);
  });
});
