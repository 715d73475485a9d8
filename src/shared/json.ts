import { randomBytes } from 'node:crypto';

// A per-process nonce keeps a user-supplied string from posing as a marker.
const NONCE = randomBytes(8).toString('hex');
const BIGINT_MARKED = new RegExp(`"bigint:${NONCE}:(-?\\d+)"`, 'g');

/**
 * JSON.stringify that writes bigints as plain JSON numbers with every digit,
 * so int64 identifiers survive (JSON.stringify alone throws on bigint).
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `bigint:${NONCE}:${v.toString()}` : v), indent);
  return text.replace(BIGINT_MARKED, '$1');
}

/**
 * The source text of each element of the array that is the member `key` of
 * the JSON object `text`, exactly as written: records passed on byte for
 * byte (JSON.parse would round int64 numbers, and re-serializing is not the
 * same bytes). `text` must be valid JSON (parse it first). Undefined when the
 * object has no such array member.
 */
export function arrayMemberTexts(text: string, key: string): string[] | undefined {
  let depth = 0;
  let lastString = '';
  let member: string | undefined;
  let elements: string[] | undefined;
  let start = -1;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charAt(i);
    if (elements !== undefined && depth === 2 && start === -1 && !/[\s,\]]/.test(char)) start = i;
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text.charAt(end) !== '"') end += text.charAt(end) === '\\' ? 2 : 1;
      if (depth === 1) lastString = text.slice(i, end + 1);
      i = end;
    } else if (char === ':' && depth === 1) {
      member = JSON.parse(lastString) as string;
    } else if (char === '{' || char === '[') {
      depth += 1;
      if (depth === 2 && char === '[' && member === key) elements = [];
    } else if (char === '}' || char === ']') {
      depth -= 1;
      if (elements !== undefined && depth === 1) {
        if (start !== -1) elements.push(text.slice(start, i).trim());
        return elements;
      }
    } else if (char === ',' && depth === 2 && elements !== undefined) {
      elements.push(text.slice(start, i).trim());
      start = -1;
    } else if (char === ',' && depth === 1) {
      member = undefined;
    }
  }
  return undefined;
}
