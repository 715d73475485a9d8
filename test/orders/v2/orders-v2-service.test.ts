import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/errors/errors.js';
import { httpBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

for (const backend of httpBackends()) {
  describe(`orders v2 storage and service (${backend.name})`, () => {
    test('when the service is given a limit outside 1..500, then validation_failed naming limit', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Limits' });
      for (const limit of [0, 501, 1.5, -1]) {
        await assert.rejects(services.ordersV2.openListing(account.id, { filter: {}, limit }), (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'validation_failed');
          assert.match(error.message, /limit/);
          return true;
        });
      }
    });
  });
}
