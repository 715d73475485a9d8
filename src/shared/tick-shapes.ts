import { createHook } from 'node:async_hooks';

/** The object kept: one per process, for the life of the process (V8's state is the process's). */
const kept: object[] = [];

/**
 * Keeps one of `process.nextTick`'s queued objects alive for the life of the
 * process, so that serving stays on V8's fast path for nextTick: off it,
 * nextTick alone cost 3 µs of a cached listing's 50 in profiles, and paired
 * runs measured 5–7 µs less per listing with it (BENCHMARKS.md, tenth session).
 *
 * Why: nextTick builds each queued object from one object literal, and
 * Node's streams call it about nine times per request. V8 holds the
 * literal's hidden classes (maps) only through live objects; a full garbage
 * collection while no queued object is alive frees them, the next literal
 * makes new ones, and after a few such collections the literal's inline
 * caches turn megamorphic for good (BENCHMARKS.md, fourth session). One live
 * object keeps the maps, so no collection frees them. The object is caught
 * as nextTick queues it (an async hook, enabled for that one call only); it
 * holds an empty callback and nothing else.
 *
 * Idempotent; a process that never calls it behaves as before.
 */
export function keepTickShapesAlive(): void {
  if (kept.length > 0) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource: object) {
      if (type === 'TickObject' && kept.length === 0) kept.push(resource);
    },
  });
  hook.enable();
  try {
    process.nextTick(() => undefined);
  } finally {
    hook.disable();
  }
}
