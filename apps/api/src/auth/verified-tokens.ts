/**
 * Bearer tokens already verified, with the caller each stands for. A client sends the same token
 * on every request until it expires, and verifying it again (decode, HMAC or signature, claims)
 * was a tenth of a search's CPU in the API. An entry lives until the token's `exp`, and never
 * longer than `maxAgeMs`, so a key removed from the JWKS stops being honoured soon after.
 * The oldest entry makes room for a new one, so memory stays bounded whatever callers send.
 */
export class VerifiedTokens<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly capacity = 10_000,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  /** Remembers a verified token until `expiresAtSeconds` (its `exp` claim) or `maxAgeMs` from now. */
  set(token: string, value: T, expiresAtSeconds: number): void {
    const now = this.now();
    const until = Math.min(expiresAtSeconds * 1000, now + this.maxAgeMs);
    if (until <= now) return;
    this.entries.delete(token);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
