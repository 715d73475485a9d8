/**
 * Control characters (terminal escape sequences, line breaks, NUL, C1) in the
 * texts people type and the service stores: refused with the reason on every
 * path that stores them, the portal's forms, the API and the CLI (issue 27).
 * Email and store name at sign-up: portal-sign-in.test.ts; the rule itself:
 * test/shared/user-text.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { errorBody } from '../../support/app.js';
import { cliOn } from '../../support/cli.js';
import { createTestPortal, pageText, signUp } from '../../support/portal.js';
import { sqliteBackend } from '../../support/storage.js';
import { webhooksHarness } from '../../webhooks/support.js';

const ESCAPE = '\u001b[2J\u001b]0;owned\u0007';
const REFUSED = /must not contain control characters/;

describe('control characters in stored texts', () => {
  test('when a signed-in user names a key, describes a webhook endpoint or names a passkey with a control character, then the form says so (400) and nothing is stored', async (t) => {
    const portal = await createTestPortal(t, sqliteBackend, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
    const { client, email } = await signUp(portal);
    const user = await portal.storage.users.findByEmail(email);
    assert.ok(user !== undefined);

    const key = await client.post('/keys', { name: `till${ESCAPE}`, expiresIn: '90d', scope: 'orders:read' }, {}, '/keys');
    assert.equal(key.statusCode, 400);
    assert.match(pageText(key.body), /Key name must not contain control characters/);
    assert.deepEqual(await portal.services.apiKeys.listKeys(user.accountId), []);

    const forms: Record<string, string>[] = [{ description: `fulfilment${ESCAPE}` }, { description: 'line one\u0085line two' }, { url: 'http://127.0.0.1:9/hooks\u001b[0m' }];
    for (const fields of forms) {
      const hook = await client.post('/webhooks', { url: 'http://127.0.0.1:9/hooks', eventType: 'order.created', ...fields }, {}, '/webhooks');
      assert.equal(hook.statusCode, 400, JSON.stringify(fields));
      assert.match(pageText(hook.body), REFUSED);
    }
    assert.deepEqual((await portal.services.webhooks.listEndpoints(user.accountId, undefined, 10)).items, []);

    const response = {} as RegistrationResponseJSON;
    await assert.rejects(portal.services.passkeys.register(user, response, `Laptop${ESCAPE}`, { id: 'portal.test', name: 'Store Orders', origin: 'http://portal.test' }), {
      message: /Passkey name must not contain control characters/,
    });
  });

  test('when the API is sent a webhook description or URL with a control character, then it answers 400 validation_failed in an Error record and stores nothing', async (t) => {
    const h = await webhooksHarness(t, sqliteBackend);
    const { accountId, auth } = await h.tenant();
    const headers = { ...auth, 'content-type': 'application/json' };
    for (const payload of [{ url: 'http://127.0.0.1:9/hooks', description: `notes${ESCAPE}` }, { url: 'http://127.0.0.1:9/\u0000hooks' }]) {
      const refused = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers, payload });
      assert.equal(refused.statusCode, 400, refused.body);
      const error = errorBody(refused);
      assert.deepEqual([error.code, error.status], ['validation_failed', 400]);
      assert.match(error.message, REFUSED);
    }
    const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers, payload: { url: 'http://127.0.0.1:9/hooks', description: 'notes' } });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json<{ id: string }>();
    const patched = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${id}`, headers, payload: { description: 'tab\there' } });
    assert.equal(patched.statusCode, 400);
    assert.match(errorBody(patched).message, REFUSED);
    assert.equal((await h.services.webhooks.getEndpoint(accountId, id)).description, 'notes');
  });

  test('when the CLI is asked to create an account or a key with a control character in its name, then it refuses with the reason', async (t) => {
    const cli = cliOn(t);
    const account = await cli.run('accounts', 'create', '--name', `Pets${ESCAPE}`);
    assert.notEqual(account.code, 0);
    assert.match(account.stderr, /Account name must not contain control characters/);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Pets', '--json')).code, 0);
    const key = await cli.run('keys', 'create', '--account', '1', '--name', `till${ESCAPE}`);
    assert.notEqual(key.code, 0);
    assert.match(key.stderr, /Key name must not contain control characters/);
    assert.match((await cli.run('accounts', 'list')).stdout, /^1\tPets\t/m);
  });
});
