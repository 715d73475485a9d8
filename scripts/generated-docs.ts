import { synopsis } from '../src/cli/cli-help.js';
import { loadCommands } from '../src/cli/commands/index.js';
import { configurationTable } from '../src/config/config-docs.js';

const COMMANDS = await loadCommands();

interface GeneratedBlock {
  name: string;
  /** Where the block's content comes from, named in its start marker. */
  source: string;
  render: () => string;
}

/**
 * The documentation's generated blocks, by the file (from the repository
 * root) that holds them: the configuration tables (from the one
 * configuration schema) and the command list (from the CLI's command
 * declarations). Each sits between a start and an end marker;
 * `npm run docs:config` rewrites them and test/config/config-docs.test.ts
 * fails when a file differs.
 */
export const GENERATED_DOCS: Readonly<Record<string, readonly GeneratedBlock[]>> = {
  'docs/configuration.md': [{ name: 'config-table', source: 'src/config/config-schema.ts', render: configurationTable }],
  'docs/operations.md': [
    {
      name: 'cli-commands',
      source: 'src/cli/commands/',
      render: () => ['```text', ...COMMANDS.flatMap((command) => [`store-orders ${synopsis(command)}`, `    ${command.summary}`]), '```', ''].join('\n'),
    },
  ],
};

/** `text`, the content of `file`, with every generated block replaced by what the code generates now. */
export function withGeneratedDocs(file: string, text: string): string {
  let result = text;
  for (const block of GENERATED_DOCS[file] ?? []) {
    const start = `<!-- ${block.name}:start (generated from ${block.source} by npm run docs:config; do not edit) -->\n`;
    const end = `<!-- ${block.name}:end -->`;
    const from = result.indexOf(start);
    const to = result.indexOf(end);
    if (from === -1 || to < from) throw new Error(`${file} lacks the markers of the ${block.name} block: ${start.trim()} … ${end}`);
    result = `${result.slice(0, from + start.length)}${block.render()}${result.slice(to)}`;
  }
  return result;
}
