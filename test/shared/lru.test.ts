import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Lru } from '../../src/shared/lru.js';

/** The obvious model: an array from oldest to youngest, scanned on every call. */
class ModelLru {
  entries: [string, number][] = [];
  constructor(private readonly max: number) {}
  get(key: string): number | undefined {
    const entry = this.entries.find(([k]) => k === key);
    if (entry === undefined) return undefined;
    this.entries = [...this.entries.filter((e) => e !== entry), entry];
    return entry[1];
  }
  set(key: string, value: number): void {
    this.delete(key);
    if (value > this.max) return;
    this.entries.push([key, value]);
    while (this.entries.reduce((sum, [, v]) => sum + v, 0) > this.max) this.entries.shift();
  }
  delete(key: string): void {
    this.entries = this.entries.filter(([k]) => k !== key);
  }
}

describe('Lru', () => {
  test('when gets, sets and deletes run in any order, then it keeps and forgets exactly what the model does', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd');
    const operation = fc.oneof(
      fc.record({ op: fc.constant('get' as const), key }),
      fc.record({ op: fc.constant('set' as const), key, value: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ op: fc.constant('delete' as const), key }),
      fc.record({ op: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const lru = new Lru<string, number>(6, (value) => value);
        const model = new ModelLru(6);
        for (const step of operations) {
          if (step.op === 'get') assert.equal(lru.get(step.key), model.get(step.key));
          else if (step.op === 'set') {
            lru.set(step.key, step.value);
            model.set(step.key, step.value);
          } else if (step.op === 'delete') {
            lru.delete(step.key);
            model.delete(step.key);
          } else {
            lru.clear();
            model.entries = [];
          }
        }
        // What is left, read without disturbing the order: oldest first.
        for (const [k, v] of model.entries) assert.equal(lru.get(k), v);
        for (const k of ['a', 'b', 'c', 'd']) if (!model.entries.some(([m]) => m === k)) assert.equal(lru.get(k), undefined);
      }),
      { numRuns: 5000 },
    );
  });

  test('when the most recently used key is read again and again, or the order changes back, then eviction still takes the least recently used', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.get('a');
    lru.get('a');
    lru.set('c', 3);
    assert.deepEqual([lru.get('b'), lru.get('a'), lru.get('c')], [undefined, 1, 3]);
    // Now c is youngest; a then c: a must be the one evicted next.
    lru.get('a');
    lru.get('c');
    lru.set('d', 4);
    assert.deepEqual([lru.get('a'), lru.get('c'), lru.get('d')], [undefined, 3, 4]);
  });
});
