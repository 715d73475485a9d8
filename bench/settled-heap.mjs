/*
 * Bench only: `npm run bench` starts every server it measures (ours and the
 * raw baselines) with `--expose-gc --import` this file. As soon as the
 * process first listens, it runs one full garbage collection from a timer,
 * when no process.nextTick is pending: the state every long-running Node
 * process reaches at its first idle collection.
 *
 * Why (BENCHMARKS.md, "Fourth session"): a full collection while no
 * nextTick is pending lets V8 drop the hidden classes of nextTick's queued
 * objects, and the inline caches of nextTick's object literal then stay
 * megamorphic for the life of the process; every request pays it (nine
 * nextTicks each in Node's streams, about 10 % of a small request's CPU).
 * Without this, a server was measured in one state or the other depending on
 * whether its start-up happened to end with such a collection, which made
 * the same code measure 10-15 % apart from one build to the next.
 */
import net from 'node:net';
import { setTimeout } from 'node:timers';

const listen = net.Server.prototype.listen;
let settled = false;
net.Server.prototype.listen = function settledListen(...args) {
  if (!settled) {
    settled = true;
    this.once('listening', () => setTimeout(() => globalThis.gc?.(), 0));
  }
  return listen.apply(this, args);
};
