/**
 * The page size of every paged listing of the API (v2 orders, events),
 * stated once: the schemas (validation, default and the OpenAPI document)
 * and the services import it.
 */
export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 500;
/** The page size as clients are told it, in the OpenAPI document and in a refusal. */
export const PAGE_LIMIT_DESCRIPTION = `an integer from 1 to ${PAGE_LIMIT_MAX} (default ${PAGE_LIMIT_DEFAULT}).`;
