import type { ProcessTracing } from '../observability/process-tracing.js';
import { runCli } from './cli.js';
import { endQuietlyOnClosedPipe } from './cli-output.js';

/**
 * Ctrl-C for a command that registered (orders import): the first one asks
 * it to stop cleanly; a second one ends the process at once (the database
 * rolls back a transaction that was never committed).
 */
function onInterrupt(listener: () => void): () => void {
  let asked = false;
  const handler = () => {
    if (asked) {
      process.stderr.write('store-orders: interrupted again; exiting without waiting (an uncommitted import is rolled back by the database).\n');
      process.exit(130);
    }
    asked = true;
    listener();
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

// `… | head -2`: the reader is gone, nothing more can be said; the command's own status (0 unless it failed).
endQuietlyOnClosedPipe([process.stdout, process.stderr], () => process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0));

let tracing: ProcessTracing | undefined;
const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), onInterrupt },
  async (config, options) => {
    const { serve } = await import('../server-cluster.js');
    await serve(config, tracing === undefined ? options : { ...options, tracing });
  },
  async (config) => {
    // Tracing's SDK loads only when it is on, and starts before anything imports pg, which its instrumentation patches as it loads.
    if (config.tracing === null) return;
    const { startProcessTracing } = await import('../observability/process-tracing.js');
    tracing = startProcessTracing(config.tracing);
  },
);
// A command's spans (an import's) are exported before the process ends (serve does it when it stops); not after a Ctrl-C, which wants out now.
if (process.argv[2] !== 'serve' && code !== 130) await tracing?.shutdown().catch(() => undefined);
// serve keeps running until a signal; every other command ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exitCode = code;
// An interrupted import may leave a read of standard input pending, which would keep the process alive.
if (code === 130) process.exit(code);
