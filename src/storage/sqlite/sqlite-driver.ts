import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/**
 * The better-sqlite3 build this Node can run; both share one JavaScript API.
 *
 * better-sqlite3 12 wraps its objects in `node::ObjectWrap`, whose
 * destructor, compiled from Node 24's headers, removes an environment
 * cleanup hook and aborts the process (`Assertion failed: (env) != nullptr`)
 * when a statement is collected outside a JavaScript context, as at every
 * exit. better-sqlite3 13 is written on Node-API and has no such hook, but it
 * needs Node-API 10 (Node 22.14 and later) and crashes on Node 20. So both
 * are installed, 13 under the npm alias `better-sqlite3-napi`, and the
 * Node-API version picks one. Drop 12 when Node 20 support ends.
 */
export const Database = (Number(process.versions.napi) >= 10 ? require('better-sqlite3-napi') : require('better-sqlite3')) as typeof BetterSqlite3;
