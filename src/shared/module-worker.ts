import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the ES module at `url`. Built, that is a .js file.
 * Run from the TypeScript sources (the tests, through tsx), the worker does
 * not inherit the process's `--import tsx` hooks on Node 20, so it registers
 * tsx itself before importing the .ts module.
 */
export function startModuleWorker(url: URL, options: WorkerOptions): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
