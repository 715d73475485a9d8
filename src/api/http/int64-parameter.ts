import type { FastifyServerOptions } from 'fastify';
import { Type } from 'typebox';
import { INT64_DECIMAL_PATTERN, parseInt64 } from '../../shared/int64.js';

/** The validator keyword that turns a checked int64 parameter into a bigint (see int64Keyword). */
const KEYWORD = 'x-int64';

/**
 * An int64 path or query parameter: validated as a canonical decimal (it must
 * never pass through a JS number) and handed to the handler as a bigint. A
 * value out of range is refused like a malformed one, naming the parameter
 * and its description. The OpenAPI generator documents it as integer/int64.
 */
export function Int64Parameter(description: string) {
  return Type.Unsafe<bigint>({ type: 'string', pattern: INT64_DECIMAL_PATTERN, description, [KEYWORD]: true });
}

/** An Ajv plugin as Fastify's `ajv.plugins` option takes one. */
type AjvPlugin = Extract<NonNullable<NonNullable<FastifyServerOptions['ajv']>['plugins']>[number], (...args: never[]) => unknown>;

/**
 * The Ajv plugin behind Int64Parameter: after the pattern has passed, the
 * value is parsed exactly and replaces the string in the validated request
 * part, or the parameter fails validation.
 */
export const int64Keyword: AjvPlugin = (ajv) =>
  ajv.addKeyword({
    keyword: KEYWORD,
    type: 'string',
    modifying: true,
    errors: false,
    compile: () => (data: string, context) => {
      const value = parseInt64(data);
      if (value === undefined || context === undefined) return false;
      context.parentData[context.parentDataProperty] = value;
      return true;
    },
  });
