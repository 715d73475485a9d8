import { ValidationError } from '../errors/errors.js';

/**
 * Unicode's control characters (category Cc): C0 (U+0000–U+001F: NUL, tab,
 * line breaks, the ESC that starts a terminal escape sequence), DEL (U+007F)
 * and C1 (U+0080–U+009F, among them CSI and NEL).
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Bounds of a text, in UTF-16 units as the database columns count them; `min` 0 allows an empty text. */
export interface TextBounds {
  min?: number;
  max?: number;
}

/**
 * Whether `text` holds a control character. Such a character in a stored
 * name reaches terminals (`store-orders … list`), logs and pages, where an
 * escape sequence can rewrite what an operator sees.
 */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/**
 * Why a text a person supplied is refused, or undefined: the one rule every
 * service applies to the texts it stores (names, descriptions, URLs;
 * emails have their own message in the users service). OWASP ASVS 5.0 1.2.x
 * and 2.2.1: control characters are refused, not stripped, so what is stored
 * is what was typed.
 */
export function textProblem(label: string, text: string, { min = 0, max = Number.POSITIVE_INFINITY }: TextBounds = {}): string | undefined {
  if (hasControlCharacter(text)) return `${label} must not contain control characters (such as line breaks, tabs or terminal escape sequences).`;
  if (text.length < min || text.length > max) return min === 0 ? `${label} must be at most ${max} characters.` : `${label} must be ${min} to ${max} characters.`;
  return undefined;
}

/** Throws a ValidationError (400 `validation_failed` on the API, the form's message in the portal) naming why `text` is refused. */
export function checkText(label: string, text: string, bounds: TextBounds = {}): void {
  const problem = textProblem(label, text, bounds);
  if (problem !== undefined) throw new ValidationError(problem);
}

/** checkText for each field that is a text (absent and null fields are not), named by its key, e.g. `{ url, description }`. */
export function checkTexts(fields: Record<string, string | null | undefined>): void {
  for (const [label, text] of Object.entries(fields)) if (typeof text === 'string') checkText(label, text);
}
