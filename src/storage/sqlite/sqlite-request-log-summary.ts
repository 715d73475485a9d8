/**
 * The summary columns of a packed batch of request logs
 * (sqlite-request-log-batches.ts): what a filter reads to skip a batch
 * without unpacking it.
 */

/** The bit of a status's class (1 << 2 for 2xx); statuses outside 100–999 share bit 0. */
export function statusClassBit(status: number): number {
  return status >= 100 && status <= 999 ? 1 << Math.trunc(status / 100) : 1;
}

/** The bits of every class a status range touches. */
export function statusClassBits(min: number, max: number): number {
  let bits = 0;
  for (let status = Math.max(min, 0); status <= max && status <= 1099; status = (Math.trunc(status / 100) + 1) * 100) bits |= statusClassBit(status);
  return min < 100 || max > 999 ? bits | 1 : bits;
}

/** A newline-framed list ("\nGET\nPOST\n") of the values, for a search of "\n<value>\n". */
export const framed = (values: Iterable<string | number | bigint>): string => {
  let text = '\n';
  for (const value of values) text += `${value}\n`;
  return text;
};

/** A batch's first_at and last_at: the earliest and latest of its times, those kept as text among them. */
export function span(firstAt: number, lastAt: number, texts: readonly string[]): { first_at: string; last_at: string } {
  const all = Number.isFinite(firstAt) ? [new Date(firstAt).toISOString(), new Date(lastAt).toISOString(), ...texts] : [...texts];
  const sorted = all.sort();
  return { first_at: sorted[0] as string, last_at: sorted.at(-1) as string };
}
