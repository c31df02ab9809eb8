import { ProblemException } from '@app/shared/http/problem';
import type { Ranking } from '../engine/search-answers';
import type { SearchCriteria } from '../engine/search-criteria';
import { LostPointInTime, type SearchEngine } from '../engine/search-engine';
import type { CursorPosition } from './search-cursor';
import type { PointInTimeLeases } from './point-in-time-leases';

const expired = () =>
  ProblemException.badRequest([{ name: 'cursor', reason: 'cursor has expired; search again' }]);

/**
 * Cursor pages (docs/contract.md §7): every page of one walk reads one point in time, whichever
 * of its cursors is followed and however often (a replay reads the same one). The walk's point in
 * time is opened by its first cursor page, under the ceilings of `PointInTimeLeases`, kept alive by
 * each page, and closed at the walk's last page; one that is gone meanwhile (closed by the last
 * page, expired, or lost with its node) is opened again, under the same ceilings.
 */
export class CursorWalks {
  constructor(
    private readonly engine: SearchEngine,
    private readonly leases: PointInTimeLeases,
  ) {}

  /** The page after `position`, for `caller` (the subject's `callerId`). */
  async page(
    criteria: SearchCriteria,
    position: CursorPosition,
    limit: number,
    caller: string,
  ): Promise<Ranking> {
    const { walk } = position;
    // A point in time lost between the lease and the search is opened again once.
    for (let attempt = 0; ; attempt += 1) {
      const pit = await this.pointInTime(walk, caller);
      let ranking: Ranking;
      try {
        ranking = await this.engine.follow(criteria, position, limit, pit);
      } catch (error) {
        if (!(error instanceof LostPointInTime)) throw error;
        await this.leases.release(walk, caller, pit);
        if (attempt > 0) throw expired();
        continue;
      }
      const read = ranking.pit ?? pit;
      if (!ranking.next) await this.close(walk, caller, read);
      else if (read !== pit) await this.leases.register(walk, caller, read);
      return ranking;
    }
  }

  /** The walk's point in time, opened when it has none (a 429 past a ceiling). */
  private async pointInTime(walk: string, caller: string): Promise<string> {
    const lease = await this.leases.acquire(walk, caller);
    if ('pit' in lease) return lease.pit;
    let pit: string;
    try {
      pit = await this.engine.openPointInTime();
    } catch (error) {
      await this.leases.abandon(walk, caller);
      throw error;
    }
    await this.leases.register(walk, caller, pit);
    return pit;
  }

  /**
   * The walk's last page was read: its point in time is closed, then its slot freed. When the
   * engine cannot close it now, the slot stays counted until the point in time lapses by itself.
   */
  private async close(walk: string, caller: string, pit: string): Promise<void> {
    try {
      await this.engine.closePointInTime(pit);
    } catch {
      return;
    }
    await this.leases.release(walk, caller, pit);
  }
}
