/**
 * The columns of SQLite's packed request logs (sqlite-request-log-batches.ts):
 * a column holds a value per entry, or, when every entry of its batch has
 * the same value, that value alone; a text is its index in the batch's
 * texts.
 */

/** A column of a batch: a value per position, or one value every entry has (Uniform). */
export type Column<T> = (T | null)[] | T;

/**
 * A column being packed: while every entry has the same value it is only
 * counted, and stored as that one value (a busy client's method, path,
 * status, key, address, user agent and API version are the same in every
 * entry of its batch); at the first entry that differs the values are laid
 * out one per position. Written as the single value, such a column costs
 * JSON and SQLite nothing per entry (BENCHMARKS.md, fifteenth session). A
 * column no entry has a value in (all null) is left out.
 */
export class Uniform<T extends number | string> {
  private values: (T | null)[] | undefined;
  /** The first entry's value (pruned positions before it have none); `seen` once there is one. */
  private first: T | null = null;
  private seen = false;
  private count = 0;

  /** The next entry's value (null: none). */
  add(value: T | null): void {
    if (this.values === undefined) {
      if (!this.seen) {
        this.first = value;
        this.seen = true;
      }
      if (value === this.first) {
        this.count++;
        return;
      }
      this.values = new Array<T | null>(this.count).fill(this.first);
    }
    this.values.push(value);
  }

  /** A pruned position: no value, and no reason to lay the column out. */
  skip(): void {
    if (this.values === undefined) this.count++;
    else this.values.push(null);
  }

  /** What the JSON holds: the one value, the values by position, or undefined when no entry has one. */
  stored(): Column<T> | undefined {
    if (this.values !== undefined) return this.values;
    return this.first === null ? undefined : this.first;
  }
}

/** Column `n`'s value at a position. */
export function valueAt<T>(column: Column<T> | undefined, n: number): T | null | undefined {
  return Array.isArray(column) ? (column[n] as T | null | undefined) : column;
}

/** A batch's texts (its `s`), each once, and what index each has. */
export function textTable() {
  const strings: string[] = [];
  const indexOf = new Map<string, number>();
  const ref = (text: string): number => {
    let index = indexOf.get(text);
    if (index === undefined) {
      index = strings.length;
      strings.push(text);
      indexOf.set(text, index);
    }
    return index;
  };
  // Per column, the last text's index: a busy client's entries repeat the one before.
  const lastRef = () => {
    let last: string | undefined;
    let lastIndex = 0;
    return (text: string): number => {
      if (text !== last) {
        last = text;
        lastIndex = ref(text);
      }
      return lastIndex;
    };
  };
  return { strings, ref, lastRef };
}
