import { Type } from 'typebox';
import { DEPRECATION_HEADER_DOCS } from '../api/http/deprecation.js';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import { Int64Parameter } from '../api/http/int64-parameter.js';

/** The Pet record: an account's animal, as the deprecated lookup returns it. */
const PetSchema = Type.Object(
  {
    id: Type.Unsafe<bigint>({ type: 'integer', format: 'int64', description: 'Unique pet identifier.' }),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'The name the store knows the animal by.' }),
  },
  { title: 'Pet', additionalProperties: false },
);

const PET_ID_DESCRIPTION =
  "the pet's identifier, a decimal int64 (-9223372036854775808 to 9223372036854775807) without leading zeros or a plus sign.";

const PetIdParamsSchema = Type.Object({
  petId: Int64Parameter(PET_ID_DESCRIPTION),
});

/** Where the Link header points: the operation on the docs page, on the same host. */
export const PETS_DEPRECATION_DOCUMENTATION = '/docs#/pets/getPet';

export const getPetSchema = {
  operationId: 'getPet',
  tags: ['pets'],
  'x-stability': 'stable',
  deprecated: true,
  summary: 'Find a pet by id (deprecated)',
  description:
    'Deprecated: every response carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers. ' +
    'From the sunset date on, this operation answers 410 Gone (`endpoint_sunset`) to every caller. ' +
    'There is no replacement in v1.',
  params: PetIdParamsSchema,
  response: {
    200: Type.Object(PetSchema.properties, {
      title: 'Pet',
      additionalProperties: false,
      description: 'The pet.',
      examples: [{ id: 7, name: 'Rex' }],
      headers: DEPRECATION_HEADER_DOCS,
    }),
    ...commonErrorResponses('pets:read', DEPRECATION_HEADER_DOCS),
    400: errorResponse(
      'The petId is not a decimal int64 (validation_failed).',
      { code: 'validation_failed', message: `Path parameter petId is not valid. Expected: ${PET_ID_DESCRIPTION}` },
      DEPRECATION_HEADER_DOCS,
    ),
    404: errorResponse(
      'No such pet for this account (pet_not_found).',
      { code: 'pet_not_found', message: 'Pet 7 was not found.' },
      DEPRECATION_HEADER_DOCS,
    ),
    410: errorResponse(
      'The sunset date has passed: the operation is gone (endpoint_sunset).',
      { code: 'endpoint_sunset', message: 'The pet lookup was retired on 2027-07-01T00:00:00.000Z; see the Link header for its documentation.' },
      DEPRECATION_HEADER_DOCS,
    ),
  },
} as const;
