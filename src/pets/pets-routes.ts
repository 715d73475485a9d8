import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { principalOf } from '../api/http/authentication.js';
import type { PetsService } from './pets-service.js';
import { getPetSchema } from './pets-schemas.js';

/**
 * Refuses every request with 410 once the pet lookup's sunset has passed.
 * Registered before authentication: a retired operation is gone for everyone.
 */
export function refuseAfterSunset(scope: FastifyInstance, { petsService }: { petsService: PetsService }): void {
  scope.addHook('onRequest', async () => {
    petsService.assertLookupAvailable();
  });
}

/** The deprecated `pets` lookup. Expects to be registered behind requireApiKey. */
export function registerPetsRoutes(scope: FastifyInstance, { petsService }: { petsService: PetsService }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/pets/:petId', { schema: getPetSchema, config: { scope: 'pets:read' } }, async (request) => {
    const pet = await petsService.getPet(principalOf(request).accountId, request.params.petId);
    return { id: pet.id, name: pet.name };
  });
}
