import type { Change, ChangesRead } from '@app/shared/video/video-change-feed';

/**
 * The change feed in memory (`VideoChangeFeed`'s reading side): entries at positions 1, 2, 3…,
 * readable after a position, with the failures a test may switch on: Redis away (`down`), a
 * position trimmed away (`trimmedUpTo`), and reads held until a test lets them go (`hold`).
 */
export class FakeChangeFeed {
  readonly entries: Change[] = [];
  down = false;
  /** Entries up to this position are gone, as Redis trims them. */
  trimmedUpTo = 0;
  reads = 0;
  /** Awaited while each read is under way, when set (a test's scheduler), as `FakeVideos.during`. */
  during: (() => Promise<void>) | undefined;
  private held: (() => void)[] | null = null;
  private readonly listeners: ((change: Change) => void)[] = [];

  /** Another process's committed write, as Redis holds it. */
  publish(change: Change): void {
    this.entries.push(change);
  }

  /** This process's own write: its readers hear of it at once, and it is published. */
  publishLocally(change: Change): void {
    for (const listener of this.listeners) listener(change);
    this.publish(change);
  }

  onLocalChange(listener: (change: Change) => void): void {
    this.listeners.push(listener);
  }

  /** Answers wait until `release` is called. */
  hold(): void {
    this.held = [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = null;
    for (const go of waiting) go();
  }

  newestPosition(): Promise<string> {
    return this.reading(() => `${this.entries.length}-0`);
  }

  read(position: string): Promise<ChangesRead> {
    return this.reading(() => {
      const at = Number(position.split('-')[0]);
      const newest = `${this.entries.length}-0`;
      if (at < this.trimmedUpTo) return { kind: 'lost', position: newest };
      return { kind: 'changes', changes: this.entries.slice(at), position: newest };
    });
  }

  /** Answers as the feed is when the read is sent, as Redis does, however long the answer is held. */
  private async reading<T>(answer: () => T): Promise<T> {
    this.reads += 1;
    const down = this.down;
    const answered = down ? undefined : answer();
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    await this.during?.();
    if (down) throw new Error('Redis is away');
    return answered!;
  }
}
