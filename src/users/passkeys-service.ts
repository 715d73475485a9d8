import { createHash, randomBytes } from 'node:crypto';
import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { checkText } from '../shared/user-text.js';
import type { ChallengePurpose, Passkey, PasskeysRepository } from './passkeys-repository.js';
import { withoutPassword, type User, type UsersRepository } from './users-repository.js';

/**
 * @simplewebauthn/server with its ASN.1 stack (some 200 modules, 0.2 s of
 * CPU) is loaded at the first passkey ceremony, not by every process that
 * builds the services: the CLI never needs it.
 */
let webauthn: Promise<typeof SimpleWebAuthn> | undefined;
const loadWebAuthn = (): Promise<typeof SimpleWebAuthn> => (webauthn ??= import('@simplewebauthn/server'));

/** How long a browser has to answer a challenge (the ceremony's timeout, with a margin). */
const CHALLENGE_TTL_MS = 5 * 60_000;
const CEREMONY_TIMEOUT_MS = 4 * 60_000;
const PASSKEY_NAME_MAX = 100;
const PASSKEYS_PER_USER_MAX = 20;

/** The relying party a ceremony is for: PORTAL_PUBLIC_URL's hostname and origin (the host knows them; the domain does not). */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The challenge a browser's answer signed, read from its clientDataJSON (verification then checks it again). */
function answeredChallenge(clientDataJSON: string): string | undefined {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    return typeof data === 'object' && data !== null && 'challenge' in data && typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Passkeys (WebAuthn, through @simplewebauthn/server): a signed-in user
 * registers one; anyone may then sign in with one, discoverable, without
 * typing an email. Challenges are random, stored by hash in the database
 * (so any process can check the answer) and used once. Every failure of a
 * sign-in is the same `undefined`: it never says whether an account exists.
 */
export function createPasskeysService({
  passkeysRepository,
  usersRepository,
  clock,
}: {
  passkeysRepository: PasskeysRepository;
  usersRepository: Pick<UsersRepository, 'findById'>;
  clock: Clock;
}) {
  /** A new challenge as bytes for the options (which send them base64url-encoded, as clientDataJSON then quotes them). */
  async function issueChallenge(purpose: ChallengePurpose, userId?: number): Promise<Uint8Array<ArrayBuffer>> {
    const challenge = randomBytes(32).toString('base64url');
    const expiresAt = new Date(clock.now().getTime() + CHALLENGE_TTL_MS).toISOString();
    await passkeysRepository.createChallenge({ hash: sha256(challenge), purpose, expiresAt, ...(userId === undefined ? {} : { userId }) });
    return new Uint8Array(Buffer.from(challenge, 'base64url'));
  }

  /** The stored challenge the answer claims to sign, consumed; undefined when unknown, used, expired or of another purpose. */
  async function consume(clientDataJSON: string, purpose: ChallengePurpose): Promise<{ challenge: string; userId?: number } | undefined> {
    const challenge = answeredChallenge(clientDataJSON);
    if (challenge === undefined || challenge.length > 200) return undefined;
    const grant = await passkeysRepository.consumeChallenge(sha256(challenge), purpose, clock.now().toISOString());
    return grant === undefined ? undefined : { challenge, ...grant };
  }

  return {
    /** The user's passkeys, oldest first. */
    list: (userId: number): Promise<Passkey[]> => passkeysRepository.listByUser(userId),

    /** Options for navigator.credentials.create(): a resident key, bound to this user, excluding the ones they have. */
    async registrationOptions(user: Pick<User, 'id' | 'email'>, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const existing = await passkeysRepository.listByUser(user.id);
      return (await loadWebAuthn()).generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: user.email,
        userID: new TextEncoder().encode(`user-${user.id}`),
        challenge: await issueChallenge('register', user.id),
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
    },

    /** Checks the browser's answer and stores the passkey; a ValidationError says what went wrong. */
    async register(user: Pick<User, 'id'>, response: RegistrationResponseJSON, name: string, rp: RelyingParty): Promise<Passkey> {
      const label = name.trim() === '' ? 'Passkey' : name.trim();
      checkText('Passkey name', label, { max: PASSKEY_NAME_MAX });
      const grant = await consume(response.response.clientDataJSON, 'register');
      if (grant === undefined || grant.userId !== user.id) throw new ValidationError('This passkey request has expired. Try again.');
      if ((await passkeysRepository.listByUser(user.id)).length >= PASSKEYS_PER_USER_MAX) throw new ValidationError(`An account holder may have at most ${PASSKEYS_PER_USER_MAX} passkeys.`);
      let verified;
      try {
        verified = await (await loadWebAuthn()).verifyRegistrationResponse({ response, expectedChallenge: grant.challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true });
      } catch {
        throw new ValidationError('The passkey could not be verified. Try again.');
      }
      if (!verified.verified) throw new ValidationError('The passkey could not be verified. Try again.');
      const { credential } = verified.registrationInfo;
      const created = await passkeysRepository.create({
        userId: user.id,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        signCount: credential.counter,
        transports: (credential.transports ?? []).filter((transport) => /^[a-z-]{1,20}$/.test(transport)),
        name: label,
        createdAt: clock.now().toISOString(),
      });
      if (created === 'credential_taken') throw new ValidationError('This passkey is already registered.');
      return created;
    },

    /** Options for navigator.credentials.get(): any discoverable passkey of this site. */
    async signInOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
      return (await loadWebAuthn()).generateAuthenticationOptions({ rpID: rp.id, challenge: await issueChallenge('sign_in'), timeout: CEREMONY_TIMEOUT_MS, userVerification: 'required' });
    },

    /**
     * The user a passkey answer signs in, or undefined for any failure
     * (unknown passkey, bad signature, used or expired challenge, disabled
     * user): the caller shows one message for all of them.
     */
    async signIn(response: AuthenticationResponseJSON, rp: RelyingParty): Promise<User | undefined> {
      const grant = await consume(response.response.clientDataJSON, 'sign_in');
      if (grant === undefined) return undefined;
      const passkey = await passkeysRepository.findByCredentialId(response.id);
      if (passkey === undefined) return undefined;
      try {
        const verified = await (await loadWebAuthn()).verifyAuthenticationResponse({
          response,
          expectedChallenge: grant.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
          credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.signCount, transports: passkey.transports },
        });
        if (!verified.verified) return undefined;
        await passkeysRepository.recordUse(passkey.id, verified.authenticationInfo.newCounter, clock.now().toISOString());
      } catch {
        return undefined;
      }
      const found = await usersRepository.findById(passkey.userId);
      if (found === undefined || found.disabledAt !== undefined) return undefined;
      return withoutPassword(found);
    },
  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
