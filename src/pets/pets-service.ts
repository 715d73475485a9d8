import { AppError, NotFoundError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { isInt64 } from '../shared/int64.js';
import { checkText } from '../shared/user-text.js';
import type { Pet, PetsRepository } from './pets-repository.js';

const PET_NAME_MAX = 200;

/** When the pet lookup was deprecated and when it stops answering (sunset >= deprecation). */
export interface PetsLifecycle {
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
}

export function createPetsService({
  petsRepository,
  clock,
  lifecycle,
}: {
  petsRepository: PetsRepository;
  clock: Clock;
  lifecycle: PetsLifecycle;
}) {
  return {
    lifecycle,

    /**
     * Refuses with 410 once the sunset instant is reached: from then on the
     * lookup is gone for every caller, whatever the pet or the key.
     */
    assertLookupAvailable(): void {
      if (clock.now().getTime() >= lifecycle.sunsetAt.getTime()) {
        throw new AppError(
          'endpoint_sunset',
          `The pet lookup was retired on ${lifecycle.sunsetAt.toISOString()}; see the Link header for its documentation.`,
        );
      }
    },

    /** The account's pet; another account's pet is reported as not found. */
    async getPet(accountId: number, petId: bigint): Promise<Pet> {
      const pet = await petsRepository.findForAccount(accountId, petId);
      if (pet === undefined) throw new NotFoundError('pet_not_found', `Pet ${petId} was not found.`);
      return pet;
    },

    /** Registers a pet for an account (operator interface). */
    async createPet(input: { accountId: number; name: string; id?: bigint }): Promise<Pet> {
      const name = input.name.trim();
      checkText('Pet name', name, { min: 1, max: PET_NAME_MAX });
      if (input.id !== undefined && !isInt64(input.id)) throw new ValidationError('Pet id must be an int64.');
      return petsRepository.create({ id: input.id, accountId: input.accountId, name, createdAt: clock.now().toISOString() });
    },
  };
}

export type PetsService = ReturnType<typeof createPetsService>;
