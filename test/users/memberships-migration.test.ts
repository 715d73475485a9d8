/** Migration 0022 on a database as the release before left it: existing users become owners, sessions keep working, outstanding operator invitations carry over. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { schemaBefore } from '../support/migrations.js';
import { readSql, runSql } from '../support/raw-sql.js';
import { storageBackends } from '../support/storage.js';

const AT = '2026-11-20T10:00:00.000Z';
const END = '2099-01-01T00:00:00.000Z';
const hashOf = (n: number) => n.toString(16).padStart(64, '0');

for (const backend of storageBackends()) {
  describe(`migration 0022, memberships (${backend.name})`, () => {
    test('when 0022 meets users, sessions and an operator invitation of the release before, then each user owns their account, their sessions work in it with that role, and the invitation joins as owner', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      // Back to version 21: every migration before 0022, as that release applied them.
      assert.equal(await schemaBefore(config, 22, AT), 21);
      await runSql(config, [
        `INSERT INTO accounts (name, created_at) VALUES ('Main Street Pets', '${AT}'), ('Harbour Pets', '${AT}')`,
        `INSERT INTO users (account_id, email, password_hash, created_at) VALUES (1, 'ann@example.com', 'h', '${AT}'), (1, 'bob@example.com', 'h', '${AT}'), (2, 'cat@example.com', 'h', '${AT}')`,
        `INSERT INTO user_sessions (id_hash, user_id, created_at, last_seen_at, expires_at, handle, device, address) VALUES ('${hashOf(1)}', 2, '${AT}', '${AT}', '${END}', '${'a'.repeat(32)}', '', '')`,
        `INSERT INTO user_tokens (hash, kind, account_id, created_at, expires_at) VALUES ('${hashOf(2)}', 'invite', 2, '${AT}', '${END}')`,
      ]);

      assert.ok((await storage.migrate()).applied.includes('0022-memberships'));

      assert.deepEqual(
        (await storage.team.listMembers(1)).map((member) => [member.email, member.role]),
        [['ann@example.com', 'owner'], ['bob@example.com', 'owner']],
      );
      assert.deepEqual(await storage.team.listMemberships(3), [{ accountId: 2, accountName: 'Harbour Pets', role: 'owner' }]);
      const session = await storage.sessions.find(hashOf(1));
      assert.deepEqual([session?.user.email, session?.user.accountId, session?.role], ['bob@example.com', 1, 'owner'], 'a session of the release before still signs in');
      const invitation = await storage.team.peekInvitation(hashOf(2), AT);
      assert.deepEqual([invitation?.accountId, invitation?.role, invitation?.email], [2, 'owner', undefined]);
      assert.deepEqual(await readSql(config, "SELECT count(*) AS n FROM user_tokens WHERE kind = 'invite'"), [{ n: config.kind === 'sqlite' ? 0 : '0' }]);
    });
  });
}
