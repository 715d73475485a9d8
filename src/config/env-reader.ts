import type { TObject, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { CONFIG_SCHEMA, type EnvironmentValues } from './config-schema.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The JSON Schema keywords the reader and the documentation look at. TypeBox
 * schemas are JSON Schema objects, so these are plain reads of what the
 * schema says, plus the annotations config-schema.ts documents.
 */
export interface VariableKeywords {
  readonly type?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly TSchema[];
  readonly default?: unknown;
  readonly description?: string;
  readonly title?: string;
  readonly errorMessage?: string;
  readonly 'x-secret'?: boolean;
}

export const keywords = (schema: TSchema): VariableKeywords => schema as VariableKeywords;

/** One variable of the schema, with its section, in declaration order. */
export interface Variable {
  readonly name: string;
  readonly section: string;
  readonly schema: TSchema;
}

/** The variables in the order they are declared (and their problems reported). */
export function variables(): Variable[] {
  const sections: Readonly<Record<string, TObject>> = CONFIG_SCHEMA.properties;
  return Object.values(sections).flatMap((section) =>
    Object.entries(section.properties).map(([name, schema]) => ({ name, section: keywords(section).title ?? '', schema })),
  );
}

/** One refused variable. */
interface EnvironmentProblem {
  readonly variable: string;
  /** One sentence naming the variable; never quotes a secret. */
  readonly problem: string;
}

export interface EnvironmentReading {
  /** Every variable typed and within its bounds; a refused one holds its default (or is absent). */
  readonly values: EnvironmentValues;
  readonly problems: readonly EnvironmentProblem[];
  /** The variables given a non-blank value. */
  readonly given: ReadonlySet<string>;
}

/**
 * Reads every variable of CONFIG_SCHEMA from `env`: blank or unset means the
 * default; otherwise the text is decoded by the variable's type and checked
 * against it. Every refused variable is reported, so that one start tells the
 * operator everything that is wrong.
 */
export function readEnvironment(env: Env): EnvironmentReading {
  const problems: EnvironmentProblem[] = [];
  const given = new Set<string>();
  const result: Record<string, Record<string, unknown>> = {};
  const sections: Readonly<Record<string, TObject>> = CONFIG_SCHEMA.properties;
  for (const [sectionName, section] of Object.entries(sections)) {
    const values: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries(section.properties)) {
      const fallback = keywords(schema).default;
      if (fallback !== undefined) values[name] = Value.Clone(fallback);
      const text = env[name]?.trim() ?? '';
      if (text === '') continue;
      given.add(name);
      const value = decode(schema, text);
      const problem = problemOf(name, schema, value, text);
      if (problem === undefined) values[name] = value;
      else problems.push({ variable: name, problem });
    }
    result[sectionName] = values;
  }
  // Holds by construction (defaults are valid, refused values are replaced); the check also types the result.
  if (!Value.Check(CONFIG_SCHEMA, result)) throw new Error('The configuration schema refuses its own defaults.');
  return { values: result, problems, given };
}

/**
 * Environment text to a value of the schema's type. Integers are plain
 * digits (no sign, exponent or hex), enumerated words match in any case, and
 * lists are comma-separated with blank entries dropped. Text that does not
 * decode is returned as is, for the check to refuse.
 */
function decode(schema: TSchema, text: string): unknown {
  const { anyOf, type } = keywords(schema);
  if (anyOf !== undefined) {
    for (const member of anyOf) {
      const value = decode(member, text);
      if (Value.Check(member, value)) return value;
    }
    return text;
  }
  if (keywords(schema).enum !== undefined || typeof keywords(schema).const === 'string') return text.toLowerCase();
  switch (type) {
    case 'integer':
      return /^[0-9]+$/.test(text) ? Number(text) : text;
    case 'number':
      return /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(text) ? Number(text) : text;
    case 'array':
      return text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    default:
      return text;
  }
}

/** The refinement's own sentence, else the variable's errorMessage, else one built from the type's bounds. */
function problemOf(name: string, schema: TSchema, value: unknown, text: string): string | undefined {
  const errors = Value.Errors(schema, value);
  if (errors.length === 0) return undefined;
  for (const error of errors) if (error.keyword === '~refine') return error.params.message;
  const { errorMessage } = keywords(schema);
  if (errorMessage !== undefined) return errorMessage;
  const got = keywords(schema)['x-secret'] === true ? '' : ` (got ${JSON.stringify(text)})`;
  return `${name} must be ${describeValues(schema, 'message')}${got}`;
}

/**
 * What a variable accepts, from its type's keywords: "an integer from 0 to
 * 65535", "one of full, normal", "a comma-separated list". In Markdown the
 * words are code spans.
 */
export function describeValues(schema: TSchema, style: 'message' | 'markdown'): string {
  const { anyOf, type, minimum, maximum } = keywords(schema);
  const word = (value: unknown) => (style === 'markdown' ? `\`${String(value)}\`` : String(value));
  const range = minimum === undefined || maximum === undefined ? '' : ` from ${minimum} to ${maximum}`;
  if (anyOf !== undefined) return anyOf.map((member) => describeValues(member, style)).join(' or ');
  const values = keywords(schema).enum;
  if (values !== undefined) return `one of ${values.map(word).join(', ')}`;
  const constant = keywords(schema).const;
  if (constant !== undefined) return style === 'markdown' ? word(constant) : JSON.stringify(constant);
  if (type === 'integer') return `an integer${range}`;
  if (type === 'number') return `a number${range}`;
  if (type === 'array') return 'a comma-separated list';
  return 'text';
}
