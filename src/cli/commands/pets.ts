import { accountIdOption, int64, JSON_OPTION, optionalString, requiredString } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

export const petsCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'pets create',
    summary: 'Register a pet (for the deprecated pet lookup)',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account that owns the pet', required: true },
      name: { type: 'string', value: '<name>', description: 'The pet\'s name', required: true },
      id: { type: 'string', value: '<int64>', description: 'The pet\'s id (default: the next one the database assigns)' },
      ...JSON_OPTION,
    },
    migrateFirst: true,
    async run({ container, values, print }) {
      const id = optionalString(values, 'id');
      const pet = await container.services.pets.createPet({
        accountId: accountIdOption(values),
        name: requiredString(values, 'name'),
        id: id === undefined ? undefined : int64(id, '--id'),
      });
      print.result(
        { id: pet.id, accountId: pet.accountId, name: pet.name, createdAt: pet.createdAt },
        `Created pet ${pet.id} (${pet.name}) for account ${pet.accountId}.`,
      );
    },
  },
];
