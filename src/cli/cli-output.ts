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

export function createPrinter(stdout: NodeJS.WritableStream, asJson: boolean): Printer {
  return { result: (json, human) => stdout.write(`${asJson ? stringifyJson(json) : human}\n`) };
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
