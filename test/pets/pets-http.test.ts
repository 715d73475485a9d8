import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import type { Clock } from '../../src/shared/clock.js';
import { createTestApp, errorBody } from '../support/app.js';
import { httpBackends } from '../support/storage.js';

const lifecycle = { deprecatedAt: new Date('2026-07-01T00:00:00Z'), sunsetAt: new Date('2027-07-01T00:00:00Z') };
const DEPRECATION = '@1782864000';
const SUNSET = 'Thu, 01 Jul 2027 00:00:00 GMT';

/** A clock the test moves by hand, to cross the sunset without waiting. */
function manualClock(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (next) => (now = new Date(next)) };
}

function assertDeprecationHeaders(headers: Record<string, unknown>): void {
  assert.equal(headers.deprecation, DEPRECATION);
  assert.equal(headers.sunset, SUNSET);
  assert.equal(
    headers.link,
    '</docs#/pets/getPet>; rel="deprecation"; type="text/html", </docs#/pets/getPet>; rel="sunset"; type="text/html"',
  );
}

for (const backend of httpBackends()) {
  describe(`GET /v1/pets/{petId} (deprecated) on ${backend.name}`, () => {
    test('when the account owns the pet, then 200 with the Pet record and the deprecation headers', async (t) => {
      const clock = manualClock('2026-11-22T00:00:00Z');
      const { app, services, tenant } = await createTestApp(t, backend, { pets: lifecycle, clock });
      const { account, auth } = await tenant();
      const pet = await services.pets.createPet({ accountId: account.id, name: 'Rex', id: 9223372036854775807n });
      const response = await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '{"id":9223372036854775807,"name":"Rex"}');
      assertDeprecationHeaders(response.headers);
    });

    test("when the pet is another account's or missing, then 404 pet_not_found with the deprecation headers", async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend, { pets: lifecycle, clock: manualClock('2026-11-22T00:00:00Z') });
      const owner = await tenant();
      const other = await tenant();
      const pet = await services.pets.createPet({ accountId: owner.account.id, name: 'Rex' });
      for (const url of [`/v1/pets/${pet.id}`, '/v1/pets/424242']) {
        const response = await app.inject({ method: 'GET', url, headers: other.auth });
        assert.equal(response.statusCode, 404);
        assert.equal(errorBody(response).code, 'pet_not_found');
        assertDeprecationHeaders(response.headers);
      }
    });

    test('when the key is missing, then 401 with the deprecation headers too', async (t) => {
      const { app } = await createTestApp(t, backend, { pets: lifecycle, clock: manualClock('2026-11-22T00:00:00Z') });
      const response = await app.inject({ method: 'GET', url: '/v1/pets/1' });
      assert.equal(response.statusCode, 401);
      assert.equal(errorBody(response).code, 'missing_api_key');
      assertDeprecationHeaders(response.headers);
    });

    test('when petId is not a canonical int64, then 400 validation_failed', async (t) => {
      const { app, tenant } = await createTestApp(t, backend, { pets: lifecycle, clock: manualClock('2026-11-22T00:00:00Z') });
      const { auth } = await tenant();
      for (const petId of ['abc', '007', '1.5', '9223372036854775808']) {
        const response = await app.inject({ method: 'GET', url: `/v1/pets/${petId}`, headers: auth });
        assert.equal(response.statusCode, 400, petId);
        assert.equal(errorBody(response).code, 'validation_failed');
        assertDeprecationHeaders(response.headers);
      }
    });

    test('when the clock reaches the sunset date, then 410 endpoint_sunset for every caller, with the headers', async (t) => {
      const clock = manualClock('2027-06-30T23:59:59.999Z');
      const { app, services, tenant } = await createTestApp(t, backend, { pets: lifecycle, clock });
      const { account, auth } = await tenant();
      const pet = await services.pets.createPet({ accountId: account.id, name: 'Rex' });
      assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth })).statusCode, 200);

      clock.set('2027-07-01T00:00:00Z');
      for (const headers of [auth, {}]) {
        const response = await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers });
        assert.equal(response.statusCode, 410);
        assert.equal(errorBody(response).code, 'endpoint_sunset');
        assertDeprecationHeaders(response.headers);
      }
    });
  });
}

describe('pets lifecycle configuration', () => {
  test('when nothing is set, then the documented defaults apply', () => {
    const config = loadConfig({});
    assert.deepEqual(config.pets, lifecycle);
    // Unset: the OpenAPI documents name the address the server listens on (issue 19 #5).
    assert.equal(config.publicBaseUrl, undefined);
    assert.equal(config.stagingBaseUrl, undefined);
  });

  test('when dates are given as ISO 8601 dates or date-times with a zone, then they are parsed to instants', () => {
    const config = loadConfig({ PETS_DEPRECATION_DATE: '2026-01-15', PETS_SUNSET_DATE: '2026-06-01T12:00:00+02:00' });
    assert.equal(config.pets.deprecatedAt.toISOString(), '2026-01-15T00:00:00.000Z');
    assert.equal(config.pets.sunsetAt.toISOString(), '2026-06-01T10:00:00.000Z');
  });

  test('when the sunset is earlier than the deprecation, then loading the configuration fails and says why', () => {
    assert.throws(
      () => loadConfig({ PETS_DEPRECATION_DATE: '2027-01-01', PETS_SUNSET_DATE: '2026-12-31' }),
      (error: unknown) => error instanceof ConfigError && error.problems.some((p) => /PETS_SUNSET_DATE must not be earlier/.test(p)),
    );
  });

  test('when a date or base URL is malformed, then each is reported', () => {
    assert.throws(
      () => loadConfig({ PETS_DEPRECATION_DATE: '2026-02-30', PETS_SUNSET_DATE: 'soon', PUBLIC_BASE_URL: 'ftp://x', STAGING_BASE_URL: 'https://x/v1?a=1' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        ['PETS_DEPRECATION_DATE', 'PETS_SUNSET_DATE', 'PUBLIC_BASE_URL', 'STAGING_BASE_URL'].every((name) =>
          error.problems.some((p) => p.startsWith(name)),
        ),
    );
  });
});
