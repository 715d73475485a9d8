import { randomBytes } from 'node:crypto';

/**
 * JSON.parse that keeps int64 fields exact. JSON.parse turns every number
 * into a JS double, so an id above 2^53 would silently change; here integer
 * literals under one of `int64Keys` become bigint, every other number stays
 * a number. Node 20 has no reviver `context.source`, so integer literals are
 * first quoted with a per-process nonce, then revived.
 */
export function parseJsonExact(text: string, int64Keys: ReadonlySet<string>): unknown {
  const marker = `int:${randomBytes(6).toString('hex')}:`;
  let quoted = '';
  let copiedUpTo = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      continue;
    }
    if (char !== '-' && !(char !== undefined && char >= '0' && char <= '9')) continue;
    const match = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (match === null) continue;
    const literal = match[0];
    if (match[1] === undefined && match[2] === undefined) {
      quoted += `${text.slice(copiedUpTo, i)}"${marker}${literal}"`;
      copiedUpTo = i + literal.length;
    }
    i += literal.length - 1;
  }
  quoted += text.slice(copiedUpTo);
  return JSON.parse(quoted, (key, value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(marker)) return value;
    const digits = value.slice(marker.length);
    return int64Keys.has(key) ? BigInt(digits) : Number(digits);
  });
}

/**
 * JSON.stringify that writes bigints as bare integer literals with every
 * digit (JSON.stringify throws on a bigint): the request side of
 * parseJsonExact.
 */
export function stringifyJsonExact(value: unknown): string {
  const marker = `int:${randomBytes(6).toString('hex')}:`;
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${marker}${item.toString()}` : item));
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}
