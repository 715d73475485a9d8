import { hasControlCharacter } from '../shared/user-text.js';

const EMAIL_MAX_LENGTH = 254;

/** A refusal a form shows beside its field; `field` names the input it is about. */
export interface Refusal {
  ok: false;
  field: 'email' | 'password' | 'storeName' | 'currentPassword' | 'passkey' | 'code' | 'form';
  message: string;
}

/** Trimmed, lower case: one person, one spelling. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What is wrong with a (normalised) email address a person typed, in words for the form; undefined: nothing. */
export function emailProblem(email: string): string | undefined {
  // Checked first: an escape sequence is not whitespace, so the shape alone would let it through.
  if (hasControlCharacter(email)) return 'An email address cannot contain control characters.';
  if (email.length > EMAIL_MAX_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email)) return 'Enter an email address like name@example.com.';
  return undefined;
}
