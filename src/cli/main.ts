// First: tracing (when on) must start before anything imports pg, which its instrumentation patches as it loads.
import { processTracing } from '../observability/process-tracing.js';
import { serve } from '../server-cluster.js';
import { runCli } from './cli.js';

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

const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), onInterrupt },
  (config, options) => serve(config, processTracing === undefined ? options : { ...options, tracing: processTracing }),
);
// A command's spans (an import's) are exported before the process ends (serve does it when it stops); not after a Ctrl-C, which wants out now.
if (process.argv[2] !== 'serve' && code !== 130) await processTracing?.shutdown().catch(() => undefined);
// serve keeps running until a signal; every other command ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exitCode = code;
// An interrupted import may leave a read of standard input pending, which would keep the process alive.
if (code === 130) process.exit(code);
