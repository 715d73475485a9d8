import { positiveInteger, UsageError } from '../cli-args.js';
import { describeFailure } from '../cli-errors.js';
import { CommandFailed } from '../cli-errors.js';
import { oneLine } from '../cli-output.js';
import type { ServerCommand } from './command.js';

const MAX_WORKERS = 64;

export const serveCommand: ServerCommand = {
  kind: 'server',
  name: 'serve',
  summary: 'Run the HTTP server (migrates first)',
  options: {
    workers: {
      type: 'string',
      value: '<n>',
      description: `Worker processes sharing the port, 1 to ${MAX_WORKERS} (default 1); n > 1 runs a node:cluster of n workers`,
    },
  },
  details: ['Stops gracefully on SIGTERM or SIGINT. The greeting goes to stderr; stdout carries only the JSON log lines.'],
  async run({ config, values, serve }) {
    const workers = typeof values.workers === 'string' ? positiveInteger(values.workers, '--workers') : 1;
    if (workers > MAX_WORKERS) throw new UsageError(`--workers must be from 1 to ${MAX_WORKERS}`);
    try {
      await serve(config, { workers });
    } catch (error) {
      // A database failure in its own words; anything else (a port in use) as the system put it.
      const described = describeFailure(error);
      throw new CommandFailed(`cannot serve: ${described.code === 'internal_error' ? oneLine(error) : described.message}`);
    }
  },
};
