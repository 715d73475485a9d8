/**
 * The bounds of a message, stated once: the schemas (validation and the
 * OpenAPI document) and the service (its own rules) both import them.
 */

/** The bound on `message`, in Unicode code points (what JSON Schema's maxLength counts). */
export const MESSAGE_MAX_CHARACTERS = 4096;
