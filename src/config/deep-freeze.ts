/**
 * Freezes `value` and everything reachable from it, so that configuration
 * read once at start-up cannot be changed by any module afterwards.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
