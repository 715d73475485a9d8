import { Type } from 'typebox';
import { documentedAs } from '../../openapi/openapi-document.js';
import type { ErrorExample } from './error-responses.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../page-bounds.js';

/**
 * The page shape every paged listing of the API shares (v2 orders, events,
 * the audit trail): `limit` and `cursor` in, `data` and `nextCursor` out.
 * Each listing words its own descriptions; the shapes are these.
 */

/**
 * The page-size parameter: a string on the wire, so that the route parses it
 * exactly (and refuses 1.0 or 0x10), documented as the integer it is.
 */
export function pageLimitField({ max, fallback, description }: { max: number; fallback: number; description: string }) {
  return Type.Optional(
    documentedAs(Type.String({ pattern: '^[1-9][0-9]{0,3}$', description: `the page size, ${description}` }), {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: max,
      default: fallback,
    }),
  );
}

/** The cursor parameter: the previous page's nextCursor, opaque and signed (api/cursors.ts). */
export function cursorField(description: string) {
  return Type.Optional(Type.String({ minLength: 1, maxLength: 512, description }));
}

/** The page-size and cursor parameters of the listings paged by PAGE_LIMIT (v2 orders, events). */
export const PAGE_QUERY_FIELDS = {
  limit: pageLimitField({ max: PAGE_LIMIT_MAX, fallback: PAGE_LIMIT_DEFAULT, description: PAGE_LIMIT_DESCRIPTION }),
  cursor: cursorField('the nextCursor of the previous page, unchanged (with the same filters).'),
};

/** A page's nextCursor where the last page says so with null. */
export function nextCursorOrNull() {
  return Type.Union([Type.String({ maxLength: 512 }), Type.Null()], { description: 'Opaque cursor of the next page, or null when this page is the last.' });
}

/** The refusal of a cursor that is not one this listing issued, as the error examples show it. */
export const INVALID_CURSOR_EXAMPLE: ErrorExample = { code: 'invalid_cursor', message: 'Query parameter cursor is not valid: pass the nextCursor of a previous page unchanged.' };
