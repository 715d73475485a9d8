/**
 * Preloaded with `node --import` by test/cli/cli-startup.test.ts: when the
 * process exits, writes to $LOADED_MODULES_FILE every module it loaded (the
 * ES modules' URLs, seen by a loader hook, and the CommonJS modules' paths),
 * one a line. What a command loads is what its start-up costs.
 */
import { createRequire, register } from 'node:module';
import { writeFileSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url, { data: { port: port2 }, transferList: [port2] });
const require = createRequire(import.meta.url);
process.on('exit', () => {
  // Drained here, synchronously: every URL was posted before its module ran.
  const loaded = [];
  for (let message = receiveMessageOnPort(port1); message !== undefined; message = receiveMessageOnPort(port1)) loaded.push(message.message);
  writeFileSync(process.env.LOADED_MODULES_FILE ?? 'loaded-modules.txt', [...loaded, ...Object.keys(require.cache)].join('\n'));
});
