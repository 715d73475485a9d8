/** Teammates for portal tests: an invitation from the Team page, used by a new user or accepted by a signed-in one. */
import assert from 'node:assert/strict';
import { pageText, TEST_PASSWORD, type PortalClient, type TestPortal } from './portal.js';

/** The tokens of the invitations mailed to `email` that are still pending, newest mail first. */
async function pendingInvitations(portal: TestPortal, email: string): Promise<string[]> {
  const mails = (await portal.services.mail.list({ recipient: email, limit: 20 })).filter((mail) => mail.kind === 'invitation');
  const tokens = await Promise.all(mails.map(async (mail) => /[?&]invite=([A-Za-z0-9_-]+)/.exec((await portal.services.mail.show(mail.id))?.body.text ?? '')?.[1] ?? ''));
  const pending = await Promise.all(tokens.map(async (token) => ((await portal.services.team.peek(token)) === undefined ? [] : [token])));
  return pending.flat();
}

/** `owner` invites `email` as `role` from the Team page; the invitee signs up with the mailed link in a browser of their own. */
export async function signUpInvited(portal: TestPortal, owner: PortalClient, email: string, role = 'developer'): Promise<PortalClient> {
  const sent = await owner.post('/team/invitations', { email, role }, {}, '/team');
  assert.equal(sent.statusCode, 303, pageText(sent.body));
  const [token] = await pendingInvitations(portal, email);
  assert.ok(token !== undefined, `an invitation to ${email} is pending`);
  const invitee = portal.client();
  await invitee.get(`/sign-up?invite=${token}`);
  const joined = await invitee.post('/sign-up', { email, password: TEST_PASSWORD, invite: token });
  assert.equal(joined.statusCode, 303, pageText(joined.body));
  return invitee;
}

/** `owner` invites the signed-in `member` (whose address is `email`) as `role`; they accept it as themself. */
export async function joinInvited(portal: TestPortal, owner: PortalClient, member: PortalClient, email: string, role = 'viewer'): Promise<void> {
  const sent = await owner.post('/team/invitations', { email, role }, {}, '/team');
  assert.equal(sent.statusCode, 303, pageText(sent.body));
  const [token] = await pendingInvitations(portal, email);
  assert.ok(token !== undefined, `an invitation to ${email} is pending`);
  assert.equal((await member.post('/invitations/accept', { invite: token }, {}, '/')).statusCode, 303);
}
