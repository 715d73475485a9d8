import { synopsis } from '../src/cli/cli-help.js';
import { COMMANDS } from '../src/cli/commands/index.js';
import { configurationTable } from '../src/config/config-docs.js';

/**
 * The README's generated blocks: the configuration tables (from the one
 * configuration schema) and the command list (from the CLI's command
 * declarations). Each sits between a start and an end marker;
 * `npm run docs:config` rewrites them and test/shared/config-docs.test.ts
 * fails when the README differs.
 */
const BLOCKS: readonly { name: string; source: string; render: () => string }[] = [
  { name: 'config-table', source: 'src/config/config-schema.ts', render: configurationTable },
  {
    name: 'cli-commands',
    source: 'src/cli/commands/',
    render: () => ['```text', ...COMMANDS.flatMap((command) => [`store-orders ${synopsis(command)}`, `    ${command.summary}`]), '```', ''].join('\n'),
  },
];

/** The README with every generated block replaced by what the code generates now. */
export function withGeneratedDocs(readme: string): string {
  let text = readme;
  for (const block of BLOCKS) {
    const start = `<!-- ${block.name}:start (generated from ${block.source} by npm run docs:config; do not edit) -->\n`;
    const end = `<!-- ${block.name}:end -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from === -1 || to < from) throw new Error(`README.md lacks the markers of the ${block.name} block: ${start.trim()} … ${end}`);
    text = `${text.slice(0, from + start.length)}${block.render()}${text.slice(to)}`;
  }
  return text;
}
