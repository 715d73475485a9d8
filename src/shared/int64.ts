export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * Canonical decimal: optional minus, no leading zeros, no plus sign, no spaces, at most 19 digits.
 * Path parameters use this pattern so that an int64 never passes through a JS
 * number; the OpenAPI generator recognises it and documents integer/int64.
 */
export const INT64_DECIMAL_PATTERN = '^(?:0|-?[1-9][0-9]{0,18})$';
const DECIMAL = new RegExp(INT64_DECIMAL_PATTERN);

/**
 * Parses a canonical decimal int64 ("9007199254740993", "-5", "0") exactly.
 * Returns undefined for anything else: "1.5", "1e3", "+1", "007", " 1",
 * or a number outside the int64 range.
 */
export function parseInt64(text: string): bigint | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}
