import { serve } from '../server-cluster.js';
import { runCli } from './cli.js';

const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() },
  (config, options) => serve(config, options),
);
// serve keeps running until a signal; every other command ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exitCode = code;
