/** The binary COPY format's signature, flags and header extension length (PostgreSQL's COPY, "Binary Format"). */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** Bytes per buffer of rows (a value longer than that gets a buffer of its own size). */
const CHUNK_BYTES = 1 << 20;
/** Milliseconds from the Unix epoch to PostgreSQL's (2000-01-01T00:00:00Z), from which a timestamptz counts microseconds. */
const POSTGRES_EPOCH_MS = 946_684_800_000;
const TWO_TO_32 = 2 ** 32;
/** Texts up to this long are written by a loop here while they are ASCII (cheaper than a call into Buffer#write for each). */
const SHORT_TEXT = 64;
/** Instants remembered per set of rows: bulk data repeats them (an import's created_at, its ship dates). */
const INSTANTS_KEPT = 10_000;

/**
 * Rows made between two turns of the event loop. A run's rows are made
 * while the database writes the run before, from rows already sent: a run
 * made in one go (80,000 orders, half a second) kept this process from
 * sending the rest of them, and from sending the next statement, meanwhile.
 */
export const YIELD_EVERY = 4096;

/** Lets the event loop run (the sockets' reads and writes) before going on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Rows for `COPY … FROM STDIN (FORMAT binary)`: each row starts with row(),
 * then one call per column, in the statement's column order; undefined is
 * NULL.
 */
export interface CopyRows {
  row(columns: number): void;
  int8(value: bigint | number | undefined): void;
  int4(value: number | undefined): void;
  bool(value: boolean): void;
  text(value: string | undefined): void;
  /** An ISO 8601 instant with its zone, to the millisecond as the domain's are (2026-12-01T10:00:00.000Z). */
  timestamptz(value: string | undefined): void;
  /** The rows, header and trailer included, for CopyIn; nothing is written afterwards. */
  done(): Uint8Array[];
}

/** ISO 8601 with a zone and at most milliseconds: the forms Date.parse reads exactly (toISOString's among them). */
const EXACT_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Microseconds since PostgreSQL's epoch; any other form is refused rather than read in a local zone or rounded. */
function micros(instant: string): bigint {
  const ms = EXACT_INSTANT.test(instant) ? Date.parse(instant) : Number.NaN;
  if (Number.isNaN(ms)) throw new Error(`${JSON.stringify(instant.slice(0, 40))} is not an ISO 8601 instant with a zone and at most milliseconds`);
  return BigInt(ms - POSTGRES_EPOCH_MS) * 1000n;
}

/**
 * Rows in COPY's binary format, written into buffers value by value as they
 * are made. Binary rather than text: the server takes each value as it is
 * stored instead of parsing it (text COPY spent about an eighth of an
 * import's database time in its line and field parsers and timestamptz_in).
 * Into buffers rather than one string of the run: that string kept every
 * row's pieces alive until it was sent, past the young generation, and an
 * import of a million orders spent longer collecting them than making them.
 */
export function copyRows(): CopyRows {
  const chunks: Uint8Array[] = [];
  let chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  chunk.set(HEADER);
  let at = HEADER.length;
  const instants = new Map<string, bigint>();
  /** Makes room for `bytes` more in the current buffer. */
  const room = (bytes: number) => {
    if (at + bytes <= chunk.length) return;
    chunks.push(chunk.subarray(0, at));
    chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes));
    at = 0;
  };
  const absent = () => {
    room(4);
    at = chunk.writeInt32BE(-1, at);
  };
  const int8 = (value: bigint | number | undefined) => {
    if (value === undefined) return absent();
    room(12);
    at = chunk.writeInt32BE(8, at);
    // A safe integer as two 32-bit halves: writeBigInt64BE costs several times as much.
    const number = typeof value === 'bigint' ? Number(value) : value;
    if (typeof value === 'bigint' && !Number.isSafeInteger(number)) {
      at = chunk.writeBigInt64BE(value, at);
      return;
    }
    const high = Math.floor(number / TWO_TO_32);
    at = chunk.writeInt32BE(high, at);
    at = chunk.writeUInt32BE(number - high * TWO_TO_32, at);
  };
  return {
    row(columns) {
      room(2);
      at = chunk.writeInt16BE(columns, at);
    },
    int8,
    int4(value) {
      if (value === undefined) return absent();
      room(8);
      at = chunk.writeInt32BE(4, at);
      at = chunk.writeInt32BE(value, at);
    },
    bool(value) {
      room(5);
      at = chunk.writeInt32BE(1, at);
      at = chunk.writeUInt8(value ? 1 : 0, at);
    },
    text(value) {
      if (value === undefined) return absent();
      // UTF-8 takes at most three bytes per UTF-16 code unit.
      room(4 + value.length * 3);
      let length = 0;
      if (value.length <= SHORT_TEXT) {
        for (; length < value.length; length++) {
          const code = value.charCodeAt(length);
          if (code >= 0x80) break;
          chunk[at + 4 + length] = code;
        }
      }
      // Anything longer, or not ASCII, is encoded by Buffer#write (from the start again).
      if (length < value.length) length = chunk.write(value, at + 4);
      chunk.writeInt32BE(length, at);
      at += 4 + length;
    },
    timestamptz(value) {
      if (value === undefined) return absent();
      let known = instants.get(value);
      if (known === undefined) {
        known = micros(value);
        if (instants.size >= INSTANTS_KEPT) instants.clear();
        instants.set(value, known);
      }
      int8(known);
    },
    done() {
      room(2);
      at = chunk.writeInt16BE(-1, at);
      chunks.push(chunk.subarray(0, at));
      return chunks;
    },
  };
}
