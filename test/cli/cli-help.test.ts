import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCommands } from '../../src/cli/commands/index.js';
import { variables } from '../../src/config/env-reader.js';
import { cliOn } from '../support/cli.js';
import { runBin } from '../support/process.js';

const COMMANDS = await loadCommands();

describe('operator CLI help', () => {
  test('when --help is asked, then it lists every command and every environment variable of the schema, and exits 0', async (t) => {
    const cli = cliOn(t);
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const result = await cli.run(...argv);
      assert.equal(result.code, 0, argv.join(' '));
      assert.equal(result.stderr, '');
      for (const command of COMMANDS) assert.match(result.stdout, new RegExp(`^  ${command.name}( |$)`, 'm'), command.name);
      for (const { name } of variables()) assert.match(result.stdout, new RegExp(`^    ${name}[= ]`, 'm'), name);
    }
  });

  test('when --help is asked, then it opens with the store developer\'s local webhook loop, and listen --help names the variables its flags fall back on', async (t) => {
    const cli = cliOn(t);
    for (const argv of [['--help'], []]) {
      const result = await cli.run(...argv);
      const shown = argv.length === 0 ? result.stderr : result.stdout;
      assert.match(
        shown,
        /^Usage: store-orders <command> \[options\]\n\nForward your account's events to a local receiver, signed as webhooks are, with your API key: no endpoint, no public URL\.\n {2}STORE_ORDERS_API_KEY=so_… store-orders listen --forward-to http:\/\/localhost:8080\/webhooks\n\nCommands:\n {2}listen --forward-to <url> /,
        argv.join(' '),
      );
    }
    const listen = await cli.run('listen', '--help');
    assert.match(listen.stdout, /^ {2}--base-url <url> .*; or set STORE_ORDERS_URL$/m);
    assert.match(listen.stdout, /^ {2}--api-key <key> .*; or set STORE_ORDERS_API_KEY$/m);
    assert.match(listen.stdout, /^Example:\n {2}STORE_ORDERS_API_KEY=so_… store-orders listen --forward-to /m);
  });

  test('when a command is given --help or -h, then it prints that command\'s usage with every flag and exits 0, even with an invalid configuration', async (t) => {
    const cli = cliOn(t, { PORT: 'eighty' });
    for (const command of COMMANDS) {
      for (const flag of ['--help', '-h']) {
        const result = await cli.run(...command.name.split(' '), flag);
        assert.equal(result.code, 0, `${command.name} ${flag}: ${result.stderr}`);
        assert.equal(result.stderr, '');
        assert.ok(result.stdout.startsWith(`Usage: store-orders ${command.name}`), result.stdout);
        for (const option of Object.keys(command.options)) assert.match(result.stdout, new RegExp(`^  --${option}\\b`, 'm'), `${command.name} --${option}`);
        for (const positional of command.positionals ?? []) assert.match(result.stdout, new RegExp(`<${positional.name}>`), positional.name);
      }
    }
  });

  test('when help names a command or a group, then it prints that usage; a group alone is a usage error', async (t) => {
    const cli = cliOn(t);
    const keys = await cli.run('keys', '--help');
    assert.equal(keys.code, 0);
    for (const name of ['keys create', 'keys list', 'keys roll', 'keys revoke']) assert.match(keys.stdout, new RegExp(`^  ${name} `, 'm'));
    const topic = await cli.run('help', 'orders', 'import');
    assert.equal(topic.code, 0);
    assert.match(topic.stdout, /^Usage: store-orders orders import --account <id> <file>/);
    const bare = await cli.run('keys');
    assert.equal(bare.code, 2);
    assert.equal(bare.stderr, 'store-orders: keys needs one of: create, list, roll, revoke; run store-orders keys --help\n');
    const none = await cli.run('help', 'bogus');
    assert.equal(none.code, 2);
  });

  test('when bin/store-orders keys create --help runs, then it prints the usage with every flag on stdout and exits 0', async () => {
    const result = await runBin(['keys', 'create', '--help'], {});
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    for (const flag of ['--account <id>', '--name <label>', '--scopes <s1,s2>', '--expires-in', '--expires-at', '--json', '--help']) {
      assert.ok(result.stdout.includes(flag), flag);
    }
  });
});
