import { StringDecoder } from 'node:string_decoder';

export interface LineSource {
  /** The input's lines, without their line ends, in groups: the lines each chunk read completed. */
  lines: AsyncGenerator<string[], void, undefined>;
  /** Bytes taken from the input so far. */
  bytesRead(): number;
}

/**
 * Splits UTF-8 bytes into NDJSON lines: a line ends at LF, and a CR right
 * before it is dropped (CRLF files). A lone CR is not a line end: in JSON it
 * is whitespace (readline would split a line there). A UTF-8 byte order mark
 * before the first line is skipped (RFC 8259 §8.1 lets a parser ignore it).
 * The last line needs no LF. Characters split across chunks stay whole.
 *
 * Nothing is read until the first line is asked for, so the input may wait
 * (e.g. while storage opens a transaction) without losing data.
 */
export function ndjsonLines(input: AsyncIterable<Buffer | string>): LineSource {
  let bytes = 0;
  async function* lines(): AsyncGenerator<string[], void, undefined> {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let first = true;
    for await (const chunk of input) {
      let piece: string;
      if (typeof chunk === 'string') {
        bytes += Buffer.byteLength(chunk);
        piece = chunk;
      } else {
        bytes += chunk.length;
        piece = decoder.write(chunk);
      }
      if (first && piece.length > 0) {
        first = false;
        if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
      }
      // Only the new piece is searched, so a line spanning many chunks costs no rescans.
      let end = piece.indexOf('\n');
      if (end === -1) {
        rest += piece;
        continue;
      }
      const group = [withoutCr(rest + piece.slice(0, end))];
      let start = end + 1;
      for (end = piece.indexOf('\n', start); end !== -1; end = piece.indexOf('\n', start)) {
        group.push(withoutCr(piece.slice(start, end)));
        start = end + 1;
      }
      rest = piece.slice(start);
      yield group;
    }
    rest += decoder.end();
    if (rest !== '') yield [rest];
  }
  return { lines: lines(), bytesRead: () => bytes };
}

function withoutCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}
