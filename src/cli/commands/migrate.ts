import { JSON_OPTION } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

export const migrateCommand: DatabaseCommand = {
  kind: 'database',
  name: 'migrate',
  summary: 'Create or upgrade the database schema',
  options: JSON_OPTION,
  migrateFirst: false,
  async run({ container, print }) {
    const report = await container.storage.migrate();
    print.result(
      report,
      report.applied.length === 0
        ? `Schema is up to date (version ${report.version}).`
        : `Applied ${report.applied.join(', ')}; schema is at version ${report.version}.`,
    );
  },
};
