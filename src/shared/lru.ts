/**
 * A bounded map that forgets its least recently used entries first. Bounded
 * by count (each entry weighs 1) or by any weight, e.g. bytes; an entry
 * heavier than the whole bound is not kept at all.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private total = 0;
  /** The most recently used key: getting it again needs no reordering (the hot path of a busy key). */
  private youngest: K | undefined;

  constructor(
    private readonly max: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined && key !== this.youngest) {
      // A Map iterates in insertion order: re-inserting moves the key to the young end.
      this.map.delete(key);
      this.map.set(key, value);
      this.youngest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    if (weight > this.max) return;
    this.map.set(key, value);
    this.youngest = key;
    this.total += weight;
    for (const [oldest, entry] of this.map) {
      if (this.total <= this.max) break;
      this.map.delete(oldest);
      this.total -= this.weigh(entry);
    }
  }

  delete(key: K): void {
    const value = this.map.get(key);
    if (value === undefined) return;
    this.map.delete(key);
    this.total -= this.weigh(value);
  }

  clear(): void {
    this.map.clear();
    this.youngest = undefined;
    this.total = 0;
  }
}
