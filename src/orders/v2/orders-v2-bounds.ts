/**
 * The v2 page size, stated once: the schemas (validation, default and the
 * OpenAPI document) and the service both import it.
 */

export const V2_LIMIT_DEFAULT = 50;
export const V2_LIMIT_MAX = 500;
/** The page size as clients are told it, in the OpenAPI document and in a refusal. */
export const LIMIT_DESCRIPTION = `an integer from 1 to ${V2_LIMIT_MAX} (default ${V2_LIMIT_DEFAULT}).`;
