// Spectral ruleset for the OpenAPI documents in openapi/: spectral:oas plus the OWASP API security
// ruleset, both loaded from node_modules (CI has no other network).
// test/contract/spectral.test.ts fails on any finding of severity warning or above.
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';

export default {
  extends: [[oas, 'recommended'], [owasp, 'recommended']],
  rules: {
    // The spec (section 2) fixes int64 identifiers; access is scoped to the key's account, so guessing an id reveals nothing.
    'owasp:api1:2023-no-numeric-ids': 'off',
    // The RateLimit headers are documented on every answer that carries them (test/contract/response-headers.test.ts compares
    // them with the wire); the 408 and 431 that Node's parser sends before any request is counted carry none, so this rule
    // (every 4xx) would demand a header that is never sent. 'owasp:api4:2023-rate-limit-responses-429' stays on.
    'owasp:api4:2023-rate-limit': 'off',
    // int64 ids span the whole int64 range (format: int64 states it); JSON numbers cannot write ±2^63 exactly. Other integers have limits.
    'owasp:api4:2023-integer-limit': 'off',
    // Free text (error messages, pet names, the Link header) has no pattern; string-limit still bounds every string's length.
    'owasp:api4:2023-string-restricted': 'off',
    // The API sends no CORS headers: bearer keys belong on servers, not in pages of other origins, so no Allow-Origin is documented.
    'owasp:api8:2023-define-cors-origin': 'off',
  },
  overrides: [
    {
      // If-None-Match is a free list of ETags; a maxLength would add a 400 the listing never gives. Node bounds headers (431).
      files: [
        'openapi/openapi.json#/paths/~1store~1orders/get/parameters/0/schema',
        'openapi/openapi-v2.json#/paths/~1store~1orders/get/parameters/7/schema',
      ],
      rules: { 'owasp:api4:2023-string-limit': 'off' },
    },
    {
      // The v1 order list has no pagination by design (spec section 4.1: the full set in one response), so it has no maxItems.
      // v2 pages it (at most 500 orders): the rule is on there.
      files: ['openapi/openapi.json#/paths/~1store~1orders/get/responses/200/content/application~1json/schema'],
      rules: { 'owasp:api4:2023-array-limit': 'off' },
    },
    {
      // listOrders takes no input at all (no parameters, no body is read), so it has no validation error to document.
      files: ['openapi/openapi.json#/paths/~1store~1orders/get/responses'],
      rules: { 'owasp:api8:2023-define-error-validation': 'off' },
    },
    {
      // getMessage's only input is the id in the path; any id is looked up (unknown ones are 404), so no 400/422 can happen.
      files: ['openapi/quickstart-openapi.json#/paths/~1messages~1%7Bid%7D/get/responses'],
      rules: { 'owasp:api8:2023-define-error-validation': 'off' },
    },
  ],
};
