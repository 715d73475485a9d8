import type { TSchema } from 'typebox';
import { describeValues, keywords, variables, type Variable } from './env-reader.js';

/**
 * The configuration's documentation, generated from the one schema
 * (config-schema.ts): the environment section of `store-orders --help` and
 * the configuration table of docs/configuration.md (`npm run docs:config` writes it; a test
 * fails when that file differs).
 */

/** The default as it would be written in the environment; '' when unset by default. */
function defaultText(schema: TSchema): string {
  const value = keywords(schema).default;
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** The description, then what the type accepts when that says more than "text". */
function meaning(variable: Variable, style: 'message' | 'markdown'): string {
  const description = keywords(variable.schema).description ?? '';
  const accepts = describeValues(variable.schema, style);
  return accepts === 'text' ? description : `${description}; ${accepts}`;
}

function bySection(): Map<string, Variable[]> {
  const sections = new Map<string, Variable[]>();
  for (const variable of variables()) sections.set(variable.section, [...(sections.get(variable.section) ?? []), variable]);
  return sections;
}

/** The environment section of `store-orders --help`: every variable with its default and description. */
export function environmentHelp(): string {
  const lines = ['Environment (read once at start; an invalid value stops the program with exit 2):'];
  for (const [section, members] of bySection()) {
    lines.push('', `  ${section}`);
    for (const variable of members) {
      const fallback = defaultText(variable.schema);
      lines.push(`    ${variable.name}${fallback === '' ? ' (unset by default)' : `=${fallback}`}`);
      lines.push(`        ${meaning(variable, 'message').replaceAll('`', '')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The configuration tables of docs/configuration.md, one per section, in Markdown. */
export function configurationTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const blocks: string[] = [];
  for (const [section, members] of bySection()) {
    const rows = members.map((variable) => {
      const fallback = defaultText(variable.schema);
      return `| \`${variable.name}\` | ${fallback === '' ? '(unset)' : `\`${cell(fallback)}\``} | ${cell(meaning(variable, 'markdown'))} |`;
    });
    blocks.push([`**${section}**`, '', '| variable | default | meaning |', '|---|---|---|', ...rows].join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
}
