/**
 * RFC 3339 date-time (the ISO 8601 profile the spec's `date-time` format
 * means): a full date, a time, and an explicit offset or Z.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parses an RFC 3339 date-time and returns it normalised to UTC with
 * milliseconds (2026-12-01T10:00:00.000Z), or undefined when the text is not
 * a real instant (wrong shape, February 30th, hour 25...).
 */
export function normalizeDateTime(text: string): string | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  if (
    year === undefined || month === undefined || day === undefined ||
    hour === undefined || minute === undefined || second === undefined
  ) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = Date.parse(text.toUpperCase().replace(' ', 'T'));
  if (Number.isNaN(millis)) return undefined;
  const date = new Date(millis);
  return date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999 ? date.toISOString() : undefined;
}

/** An ISO 8601 UTC instant as people read it on a page or in a mail: `2026-11-24 19:05 UTC` (the reader's zone is not known). */
export function readableInstant(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
