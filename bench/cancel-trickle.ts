/*
 * For npm run bench: cancels orders firstId, firstId+1, … one at a time,
 * `intervalMs` apart, `count` of them, against a running server (in its own
 * process, because the bench blocks its event loop while wrk runs). Prints
 * how many answered 204.
 *   node --import tsx bench/cancel-trickle.ts <baseUrl> <key> <firstId> <count> <intervalMs>
 */
const [baseUrl, key, first, count, interval] = process.argv.slice(2);
let ok = 0;
for (let i = 0; i < Number(count); i++) {
  const response = await fetch(`${baseUrl}/v1/store/orders/${BigInt(first ?? '0') + BigInt(i)}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
  if (response.status === 204) ok++;
  await response.arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, Number(interval)));
}
process.stdout.write(`${ok}\n`);
