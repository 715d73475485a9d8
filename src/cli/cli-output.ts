import type { WriteStream } from 'node:tty';
import { stringifyJson } from '../shared/json.js';

/** What a CLI run reads and writes; injected so that tests run commands in-process. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Read by `orders import -`. */
  stdin?: NodeJS.ReadableStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * Calls `listener` on the first Ctrl-C (SIGINT) until the returned function
   * is called; a command that can stop cleanly (orders import) registers.
   */
  onInterrupt?: (listener: () => void) => () => void;
}

export interface Printer {
  /** Prints `json` with --json, otherwise the human lines. */
  result(json: object, human: string): void;
}

/**
 * Prints a command's result. The human text carries what users stored
 * (emails, store names, key names, URLs, descriptions): its control
 * characters are escaped (escapeControls), keeping only the line breaks and
 * tabs that lay it out. JSON escapes C0 itself; C1 and the bidirectional
 * controls, which it leaves as they are, become \u escapes.
 */
export function createPrinter(stdout: NodeJS.WritableStream, asJson: boolean): Printer {
  return { result: (json, human) => stdout.write(`${asJson ? escapeControls(stringifyJson(json), 'json') : escapeControls(human, 'layout')}\n`) };
}

/**
 * Unicode's control characters (Cc: C0 with ESC and BEL, DEL, C1 with CSI),
 * the line and paragraph separators and the bidirectional controls that
 * reorder what a terminal shows (the "Trojan Source" characters).
 */
const UNSAFE_FOR_TERMINALS = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` fit for a terminal: each control character written as an escape
 * (`\x1b`, `\u202e`), so that a stored email holding an escape sequence
 * shows as text instead of setting the operator's terminal title or
 * rewriting the screen. `layout`: line breaks and tabs stay (the human
 * output's own lines and columns). `json`: JSON text, every one as a `\u`
 * escape, which reads back as the same string.
 */
export function escapeControls(text: string, mode: 'text' | 'layout' | 'json' = 'text'): string {
  return text.replace(UNSAFE_FOR_TERMINALS, (character) => {
    if (mode === 'layout' && (character === '\n' || character === '\t')) return character;
    const code = character.codePointAt(0) ?? 0;
    return code <= 0xff && mode !== 'json' ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A reader that went away (`store-orders orders list | head -2`) ends the
 * command quietly: Node ignores SIGPIPE, so a write to the closed pipe fails
 * with EPIPE, which unhandled printed a stack trace. `onClosed` ends the
 * process (bin/store-orders: with the command's status, 0 when it had not
 * failed); any other stream error is left to Node.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WritableStream[], onClosed: () => void): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      onClosed();
    });
  }
}


/** An error's message on one line: no stack, no embedded newlines. */
export function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
}

/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export function progressBar(stderr: NodeJS.WritableStream, totalBytes: number | undefined) {
  const tty = (stderr as Partial<WriteStream>).isTTY === true;
  let lastDrawn = 0;
  let drawn = false;
  return {
    update(count: number, bytes: number) {
      const now = Date.now();
      if (!tty || now - lastDrawn < 100) return;
      lastDrawn = now;
      drawn = true;
      const width = 30;
      if (totalBytes !== undefined && totalBytes > 0) {
        const fraction = Math.min(1, bytes / totalBytes);
        const filled = Math.round(fraction * width);
        stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${count.toLocaleString('en-US')} orders`);
      } else {
        stderr.write(`\r${count.toLocaleString('en-US')} orders read`);
      }
    },
    done() {
      if (drawn) stderr.write('\n');
    },
  };
}
