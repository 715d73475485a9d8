import { EVENT_TYPES } from '../../events/event-types.js';
import { accountIdOption, eventTypesOption, JSON_OPTION, optionalString, positiveInteger } from '../cli-args.js';
import { escapeControls } from '../cli-output.js';
import type { DatabaseCommand } from './command.js';

export const eventsCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'events list',
    summary: 'List an account\'s events, oldest first (the GET /v2/events feed)',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account whose events to list', required: true },
      type: { type: 'string', value: '<types>', description: `Only these types, comma-separated, among ${EVENT_TYPES.join(', ')}` },
      limit: { type: 'string', value: '<n>', description: 'At most this many events, 1 to 500 (default 50)' },
      cursor: { type: 'string', value: '<cursor>', description: 'Continue after an earlier run: its nextCursor (with the same --type)' },
      ...JSON_OPTION,
    },
    details: ['The events come in commit order; the last line (or nextCursor with --json) is where the next run continues.'],
    migrateFirst: true,
    async run({ container, values, io, print }) {
      const accountId = accountIdOption(values);
      // An empty feed would read as "this account has no events", which is a different fact.
      await container.services.accounts.requireAccount(accountId);
      const limitText = optionalString(values, 'limit');
      const types = eventTypesOption(values, 'type');
      const page = await container.services.events.listEvents(accountId, {
        filter: types === undefined || types.length === 0 ? {} : { types },
        limit: limitText === undefined ? 50 : positiveInteger(limitText, '--limit'),
        cursor: optionalString(values, 'cursor'),
      });
      if (values.json === true) {
        // The stored Event records, as the API sends them (int64 ids exact).
        io.stdout.write(`${escapeControls(`{"events":[${page.events.map((event) => event.payload).join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`, 'json')}\n`);
        return;
      }
      const lines = page.events.map((event) => `${event.createdAt}\t${event.type}\t${event.subject.replace(':', ' ')}\t${event.id}`);
      print.result({}, [...(lines.length === 0 ? ['No events.'] : lines), `next: --cursor ${page.nextCursor}`].join('\n'));
    },
  },
];
