import type { CursorCodec } from '../api/cursors.js';
import { InvalidInputError } from '../errors/errors.js';

/** A page of a listing by signed cursor (the API's): the items, and the cursor of the next page or null at the end. */
export interface CursorPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** Each listing's digest in its cursors, so that a cursor never crosses listings (nor endpoints). */
export const ENDPOINTS_LISTING = 'webhook-endpoints';
export const deliveriesListing = (endpointId: string) => `webhook-deliveries:${endpointId}`;

const invalidCursor = () => new InvalidInputError('cursor', 'is not valid: pass the nextCursor of a previous page unchanged.', 'invalid_cursor');

/** The signed cursors of the webhook listings (the API's one codec, a digest per listing). */
export function createWebhookCursors(cursors: CursorCodec) {
  /** The key a signed cursor of `listing` carries (a delivery's seq, an endpoint's id); a cursor of another account or listing, altered or forged, is refused alike. */
  async function positionOf(accountId: number, listing: string, cursor: string | undefined, form: RegExp): Promise<string | undefined> {
    if (cursor === undefined) return undefined;
    const position = await cursors.decode(cursor);
    if (position === undefined || position.accountId !== accountId || position.filterDigest !== listing) throw invalidCursor();
    const key = position.afterKey ?? position.afterId.toString();
    if (!form.test(key)) throw invalidCursor();
    return key;
  }

  /** The cursor after `last`: a decimal seq is carried as a number, an id as text. */
  async function cursorAfter(accountId: number, listing: string, last: string | undefined): Promise<string | null> {
    if (last === undefined) return null;
    const position = /^[0-9]+$/.test(last) ? { afterId: BigInt(last) } : { afterId: 0n, afterKey: last };
    return cursors.encode({ accountId, filterDigest: listing, ...position });
  }

  return { positionOf, cursorAfter };
}
