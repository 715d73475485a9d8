import { randomFillSync } from 'node:crypto';

/**
 * A request id in randomUUID()'s form (8-4-4-4-12 lowercase hexadecimal
 * digits, as ours are) held as four 32-bit words. Held as a string from
 * capture to flush, an id outlived the young generation and was copied, then
 * promoted, by the collector; four numbers in a typed array cost it nothing
 * (BENCHMARKS.md, fourteenth session). Written back as text where it is
 * stored, or as bytes straight into a list of them (writeUuid).
 */

/**
 * The value of each hexadecimal digit a UUID holds (lowercase, as randomUUID
 * writes it), by character code, for every code a string can hold; -1 for
 * any other (64 KB: a table with no branch for codes above 127).
 */
const HEX_DIGIT = new Int8Array(65_536).fill(-1);
for (let digit = 0; digit < 16; digit++) HEX_DIGIT['0123456789abcdef'.charCodeAt(digit)] = digit;

/** The four digits at `id[i…]` as a number, or -1 if any is not a digit. */
function fourDigits(id: string, i: number): number {
  const a = HEX_DIGIT[id.charCodeAt(i)] as number;
  const b = HEX_DIGIT[id.charCodeAt(i + 1)] as number;
  const c = HEX_DIGIT[id.charCodeAt(i + 2)] as number;
  const d = HEX_DIGIT[id.charCodeAt(i + 3)] as number;
  return (a | b | c | d) < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

/**
 * The id as four words at `words[at…]`; false (the words left partly
 * written) for an id in any other form. Read four digits at a time at their
 * fixed places: a loop over the characters cost the capture 0.3 µs per
 * request (BENCHMARKS.md, fifteenth session).
 */
export function packUuid(id: string, words: Uint32Array, at: number): boolean {
  if (id.length !== 36 || id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(18) !== 45 || id.charCodeAt(23) !== 45) return false;
  // The groups of four digits: 8 (two), 4, 4, 4 and 12 (three).
  const g0 = fourDigits(id, 0);
  const g1 = fourDigits(id, 4);
  const g2 = fourDigits(id, 9);
  const g3 = fourDigits(id, 14);
  const g4 = fourDigits(id, 19);
  const g5 = fourDigits(id, 24);
  const g6 = fourDigits(id, 28);
  const g7 = fourDigits(id, 32);
  if ((g0 | g1 | g2 | g3 | g4 | g5 | g6 | g7) < 0) return false;
  words[at] = (g0 << 16) | g1;
  words[at + 1] = (g2 << 16) | g3;
  words[at + 2] = (g4 << 16) | g5;
  words[at + 3] = (g6 << 16) | g7;
  return true;
}

/** The character code of each hexadecimal digit. */
const HEX_CODE = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

/** The length of a UUID's text. */
export const UUID_LENGTH = 36;

/** Four hexadecimal digits (the low 16 bits of `half`) as ASCII at `bytes[i…]`. */
function putFour(bytes: Uint8Array, i: number, half: number): void {
  bytes[i] = HEX_CODE[(half >>> 12) & 15] as number;
  bytes[i + 1] = HEX_CODE[(half >>> 8) & 15] as number;
  bytes[i + 2] = HEX_CODE[(half >>> 4) & 15] as number;
  bytes[i + 3] = HEX_CODE[half & 15] as number;
}

/**
 * The id's text as UUID_LENGTH ASCII bytes at `bytes[offset…]`: read as one
 * string, where a string built per pair of digits cost a quarter of a
 * microsecond per id (BENCHMARKS.md, fifteenth session).
 */
export function writeUuid(words: Uint32Array, at: number, bytes: Uint8Array, offset: number): void {
  const a = words[at] as number;
  const b = words[at + 1] as number;
  const c = words[at + 2] as number;
  const d = words[at + 3] as number;
  putFour(bytes, offset, a >>> 16);
  putFour(bytes, offset + 4, a);
  bytes[offset + 8] = 45;
  putFour(bytes, offset + 9, b >>> 16);
  bytes[offset + 13] = 45;
  putFour(bytes, offset + 14, b);
  bytes[offset + 18] = 45;
  putFour(bytes, offset + 19, c >>> 16);
  bytes[offset + 23] = 45;
  putFour(bytes, offset + 24, c);
  putFour(bytes, offset + 28, d >>> 16);
  putFour(bytes, offset + 32, d);
}

/** Where an id's text is written before it is read as a string. */
const textBytes = Buffer.allocUnsafe(UUID_LENGTH);

/** The inverse of packUuid: the id's text, written through writeUuid (one string, not one per pair of digits). */
export function uuidText(words: Uint32Array, at: number): string {
  writeUuid(words, at, textBytes, 0);
  return textBytes.toString('latin1', 0, UUID_LENGTH);
}

/** Random words, drawn four per id, refilled when used up. */
const randomWords = new Uint32Array(4096);
let randomAt = randomWords.length;
/** The id issued last, and its words. */
let lastIssued = '';
const lastIssuedWords = new Uint32Array(4);

/**
 * A new request id: a random (version 4) UUID, as randomUUID makes, whose
 * words are kept until the next one is issued, so that a capture right after
 * its answer (the fast lane's) copies them (copyIssuedWords) rather than
 * reading the text back. randomUUID then packUuid cost a logged request 0.4
 * µs, this 0.1 (BENCHMARKS.md, fifteenth session).
 */
export function newRequestUuid(): string {
  if (randomAt === randomWords.length) {
    randomFillSync(randomWords);
    randomAt = 0;
  }
  lastIssuedWords[0] = randomWords[randomAt] as number;
  // The version (4) and the variant (10xx), as RFC 9562 sets them.
  lastIssuedWords[1] = ((randomWords[randomAt + 1] as number) & 0xffff0fff) | 0x4000;
  lastIssuedWords[2] = ((randomWords[randomAt + 2] as number) & 0x3fffffff) | 0x80000000;
  lastIssuedWords[3] = randomWords[randomAt + 3] as number;
  randomAt += 4;
  lastIssued = uuidText(lastIssuedWords, 0);
  return lastIssued;
}

/**
 * Copies the words of `id` to `words[at…]` when it is the id issued last (or
 * an id with the same text): true; false for any other id, which is then read
 * from its text (packUuid).
 */
export function copyIssuedWords(id: string, words: Uint32Array, at: number): boolean {
  if (lastIssued === '' || id !== lastIssued) return false;
  // Four stores: set() with a typed array cost more than the copy.
  words[at] = lastIssuedWords[0] as number;
  words[at + 1] = lastIssuedWords[1] as number;
  words[at + 2] = lastIssuedWords[2] as number;
  words[at + 3] = lastIssuedWords[3] as number;
  return true;
}
