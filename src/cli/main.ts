import { runServer } from '../server.js';
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }, (config) =>
  runServer(config),
);
// serve keeps running until a signal; every other command ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exitCode = code;
