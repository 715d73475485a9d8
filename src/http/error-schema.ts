import { Type } from 'typebox';
import { ERROR_CODES } from '../errors/errors.js';

/** The spec's Error record; `status` always equals the HTTP status. */
export const ErrorRecordSchema = Type.Object(
  {
    code: Type.String({ enum: ERROR_CODES, description: 'Machine-readable error code, one of a closed set.' }),
    message: Type.String({ description: 'Human-readable description.' }),
    status: Type.Integer({ description: 'The HTTP status code of the response.' }),
  },
  { title: 'Error', additionalProperties: false },
);
