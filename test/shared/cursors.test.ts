import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCursorCodec } from '../../src/api/cursors.js';
import { systemClock } from '../../src/shared/clock.js';

const codec = () =>
  createCursorCodec({
    secrets: ['a-cursor-secret-of-at-least-32-characters'],
    // A configured secret: the database's key is never asked for.
    secretsRepository: { getOrCreate: () => Promise.reject(new Error('not used with a configured secret')) },
    clock: systemClock,
  });

test('when a cursor carries a text key, then it comes back as written; an id past int64 or an altered key does not', async () => {
  const cursors = codec();
  const id = 'we_5f0c9d1e2b3a4c5d6e7f8091a2b3c4d5';
  const text = await cursors.encode({ accountId: 7, filterDigest: 'webhook-endpoints', afterId: 0n, afterKey: id });
  assert.deepEqual(await cursors.decode(text), { accountId: 7, filterDigest: 'webhook-endpoints', afterId: 0n, afterKey: id });
  // Without a text key, a position is a number, as every listing's.
  const numeric = await cursors.encode({ accountId: 7, filterDigest: 'events', afterId: 42n });
  assert.deepEqual(await cursors.decode(numeric), { accountId: 7, filterDigest: 'events', afterId: 42n });
  await assert.rejects(cursors.encode({ accountId: 7, filterDigest: 'x', afterId: 0n, afterKey: 'not a key!' }));
  // Another key in the payload: the MAC no longer matches.
  const [payload = '', mac = ''] = text.split('.');
  const altered = Buffer.from(Buffer.from(payload, 'base64url').toString('utf8').replace(id, 'we_00000000000000000000000000000000')).toString('base64url');
  assert.equal(await cursors.decode(`${altered}.${mac}`), undefined);
});
