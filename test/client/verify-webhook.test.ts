import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/verify-webhook.js';

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
const BODY = '{"id":"evt_1","type":"order.cancelled","createdAt":"2026-11-24T10:00:00.000Z","data":{"order":{"id":9007199254740993,"status":"cancelled","complete":false,"petId":7}}}';

function signed(secrets: string[], at = new Date()) {
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign('evt_1', at, BODY)).join(' '),
  };
}

test('when a delivery signed by standardwebhooks is verified, then the Event comes back with exact int64 ids', () => {
  const event = verifyWebhook(BODY, signed([SECRET]), SECRET);
  assert.equal(event.type, 'order.cancelled');
  assert.deepEqual(event.data, { order: { id: 9007199254740993n, status: 'cancelled', complete: false, petId: 7n } });
  // During a rotation either secret verifies; Headers objects work as well as plain records.
  assert.equal(verifyWebhook(BODY, new Headers(signed([OTHER, SECRET])), SECRET).id, 'evt_1');
});

test('when the secret is wrong, the body altered, the timestamp stale or a header missing, then verification fails', () => {
  assert.throws(() => verifyWebhook(BODY, signed([OTHER]), SECRET), WebhookVerificationError);
  assert.throws(() => verifyWebhook(BODY.replace('cancelled', 'shipped'), signed([SECRET]), SECRET), WebhookVerificationError);
  assert.throws(() => verifyWebhook(BODY, signed([SECRET], new Date(Date.now() - 3600_000)), SECRET), /too far from now/);
  const unsigned: Record<string, string | undefined> = signed([SECRET]);
  delete unsigned['webhook-signature'];
  assert.throws(() => verifyWebhook(BODY, unsigned, SECRET), /Missing/);
});
