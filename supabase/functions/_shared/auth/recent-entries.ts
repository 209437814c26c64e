// What the database told the gateway lately (a key it accepted, the user of a session's `sub`), kept
// for a while so that the next request need not ask again: each entry expires `ttlMs` after it was
// last set, and past `maxEntries` the oldest is forgotten first.
export class RecentEntries<V> {
  private readonly entries = new Map<string, { value: V; expiry: number }>();

  constructor(private readonly ttlMs = 60_000, private readonly maxEntries = 10_000) {}

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiry > now) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, now = Date.now()): void {
    this.entries.delete(key); // re-inserted last: a Map iterates in insertion order, oldest first
    this.entries.set(key, { value, expiry: now + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
