import { createHash } from 'node:crypto';

/** What a check says of a password: seen in a breach, not seen, or the service could not answer. */
export type BreachedPasswordResult = 'breached' | 'clean' | 'unavailable';

/** Checks one password against a list of breached passwords. */
export type BreachedPasswordCheck = (password: string) => Promise<BreachedPasswordResult>;

/** The longest answer read: a real range answer is some 30 KB (about 1,000 suffixes, padded). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The body as text, or undefined past MAX_ANSWER_BYTES (read no further). */
async function cappedText(body: ReadableStream<Uint8Array>): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A check against a Pwned Passwords range API (haveibeenpwned.com's, or a
 * mirror an operator runs: PORTAL_BREACHED_PASSWORDS_URL), by k-anonymity:
 * only the first 5 hexadecimal characters of the password's SHA-1 leave the
 * server (`GET <url><prefix>`), and the answer lists every breached hash
 * suffix under that prefix, `SUFFIX:COUNT` a line, padded with entries of
 * count 0 (`Add-Padding: true`) so that its size tells nothing either. The
 * password is breached when its suffix is listed with a count above 0. An
 * answer that is late (`timeoutMs`), not a 200 or too long is
 * 'unavailable': the caller decides (the portal accepts the password and
 * counts it in a metric, rather than lock everyone out while the service is
 * down).
 */
export function createBreachedPasswordCheck({ rangeUrl, timeoutMs }: { rangeUrl: string; timeoutMs: number }): BreachedPasswordCheck {
  return async (password) => {
    const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const prefix = hash.slice(0, 5);
    const suffix = hash.slice(5);
    let text: string;
    try {
      const answer = await fetch(`${rangeUrl}${prefix}`, {
        headers: { 'add-padding': 'true', 'user-agent': 'store-orders (breached password check)' },
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      if (answer.status !== 200 || answer.body === null) {
        await answer.body?.cancel();
        return 'unavailable';
      }
      const read = await cappedText(answer.body);
      if (read === undefined) return 'unavailable';
      text = read;
    } catch {
      return 'unavailable';
    }
    for (const line of text.split('\n')) {
      const [listed = '', count = '0'] = line.trim().split(':');
      if (listed.toUpperCase() === suffix) return Number.parseInt(count, 10) > 0 ? 'breached' : 'clean';
    }
    return 'clean';
  };
}
