const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Longest duration accepted anywhere (100 years), so a date computed from it stays in range. */
const MAX_MS = 100 * 365 * UNIT_MS.d;

/**
 * Parses a duration written as a whole number and one unit: `90d`, `24h`,
 * `30m`, `45s`, or `0` (zero). Returns milliseconds, or undefined.
 */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const match = /^([0-9]{1,9})([smhd])$/.exec(text);
  if (match === null) return undefined;
  const [, amount = '', unit = 's'] = match;
  const ms = Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return ms <= MAX_MS ? ms : undefined;
}
