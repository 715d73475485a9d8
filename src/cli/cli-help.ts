import type { CliOption } from './cli-args.js';
import type { CliCommand } from './commands/command.js';

/**
 * Usage texts, generated from the commands' declarations and the
 * configuration schema: nothing here lists a command, flag or variable by hand.
 */

const flag = (name: string, option: CliOption) => `--${name}${option.type === 'string' ? ` ${option.value ?? '<value>'}` : ''}`;

/** "orders import --account <id> <file> [--json]": required options, positionals, then optional options in brackets. */
export function synopsis(command: CliCommand): string {
  const options = Object.entries(command.options);
  return [
    command.name,
    ...options.filter(([, option]) => option.required === true).map(([name, option]) => flag(name, option)),
    ...(command.positionals ?? []).map((p) => `<${p.name}>`),
    ...options.filter(([, option]) => option.required !== true).map(([name, option]) => `[${flag(name, option)}]`),
  ].join(' ');
}

function commandList(commands: readonly CliCommand[]): string[] {
  return commands.flatMap((command) => [`  ${synopsis(command)}`, `      ${command.summary}`]);
}

/** The usage line, the first command's example, and every command with its summary, as both top-level usages begin. */
function topUsage(commands: readonly CliCommand[]): string[] {
  const [first] = commands;
  const opener = first?.example === undefined ? [] : [`${first.summary}.`, `  ${first.example}`, ''];
  return ['Usage: store-orders <command> [options]', '', ...opener, 'Commands:', ...commandList(commands), ''];
}

/** `store-orders` without a command: the commands only (on stderr, exit 2). */
export function shortUsage(commands: readonly CliCommand[]): string {
  return [
    ...topUsage(commands),
    'Run store-orders <command> --help for a command\'s options, store-orders --help for the environment variables.',
    '',
  ].join('\n');
}

/** `store-orders --help`: every command, then every environment variable of the configuration schema (`environment`: config-docs.ts's environmentHelp). */
export function fullUsage(commands: readonly CliCommand[], environment: string): string {
  return [
    ...topUsage(commands),
    'Run store-orders <command> --help for a command\'s options.',
    'Every command but serve accepts --json (one JSON object on stdout; on failure {"code","message","exitCode"}).',
    'Exit codes: 0 success, 1 the command failed, 2 called wrongly or invalid configuration, 130 interrupted (Ctrl-C).',
    'store-orders --version (or -v, version) prints the version. More: docs/cli.md.',
    '',
    environment,
  ].join('\n');
}

/** `store-orders keys --help`: the commands of one group. */
export function groupUsage(group: string, commands: readonly CliCommand[]): string {
  return [`Usage: store-orders ${group} <command> [options]`, '', 'Commands:', ...commandList(commands), '', `Run store-orders ${group} <command> --help for a command's options.`, ''].join('\n');
}

/** `store-orders <command> --help`: its synopsis, summary, arguments and every flag. */
export function commandUsage(command: CliCommand): string {
  const rows: [string, string][] = [
    ...Object.entries(command.options).map(([name, option]): [string, string] => [
      flag(name, option),
      `${option.description}${option.required === true ? ' (required)' : ''}${option.env === undefined ? '' : `; or set ${option.env}`}`,
    ]),
    ['-h, --help', 'Print this help'],
  ];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const lines = [`Usage: store-orders ${synopsis(command)}`, '', `${command.summary}.`];
  if (command.example !== undefined) lines.push('', 'Example:', `  ${command.example}`);
  if (command.positionals !== undefined && command.positionals.length > 0) {
    lines.push('', 'Arguments:', ...command.positionals.map((p) => `  <${p.name}>  ${p.description}`));
  }
  lines.push('', 'Options:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`));
  for (const paragraph of command.details ?? []) lines.push('', paragraph);
  lines.push('', 'The configuration comes from the environment: store-orders --help lists every variable.', '');
  return lines.join('\n');
}
