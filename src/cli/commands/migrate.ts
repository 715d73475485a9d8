import { JSON_OPTION } from '../cli-args.js';
import { CommandFailed } from '../cli-errors.js';
import type { DatabaseCommand } from './command.js';

export const migrateCommand: DatabaseCommand = {
  kind: 'database',
  name: 'migrate',
  summary: 'Create or upgrade the database schema (on PostgreSQL, creating the database if the role may)',
  options: JSON_OPTION,
  details: [
    'On PostgreSQL, a database named in DATABASE_URL that does not exist is created (CREATE DATABASE, from the postgres maintenance database) when the role may; otherwise the message says what an administrator must run.',
  ],
  migrateFirst: false,
  async run({ config, container, print }) {
    let created: string | undefined;
    if (config.database.kind === 'postgres') {
      // Imported here, after bin/store-orders has started tracing (when on): its instrumentation must see pg load.
      const { ensurePostgresDatabase } = await import('../../storage/postgres/postgres-create-database.js');
      const ensured = await ensurePostgresDatabase(config.database.url);
      if (ensured.outcome === 'refused') throw new CommandFailed(ensured.message, 'database_not_created');
      if (ensured.outcome === 'created') created = ensured.database;
    }
    const report = await container.storage.migrate();
    const createdLine = created === undefined ? '' : `Created database "${created}".\n`;
    print.result(
      created === undefined ? report : { ...report, createdDatabase: created },
      createdLine +
        (report.applied.length === 0
          ? `Schema is up to date (version ${report.version}).`
          : `Applied ${report.applied.join(', ')}; schema is at version ${report.version}.`),
    );
  },
};
