import { Type, type Static } from 'typebox';
import { api } from './sections/api.js';
import { audit } from './sections/audit.js';
import { database } from './sections/database.js';
import { messages, webhooks } from './sections/delivery.js';
import { limits } from './sections/limits.js';
import { mail } from './sections/mail.js';
import { metrics, tracing } from './sections/observability.js';
import { portal } from './sections/portal.js';
import { requestLogs } from './sections/request-logs.js';
import { quickstart, server } from './sections/server.js';

/**
 * Every environment variable the program reads, defined once: the section
 * (the object it sits in, titled; one file of sections/ per concern), its name (the property), its type and
 * bounds, its default and a one-line description (Markdown: the docs table
 * shows it as is, --help without the backticks). Parsing (env-reader.ts), the
 * defaults, `store-orders --help` and the configuration table of docs/configuration.md
 * (config-docs.ts, `npm run docs:config`) all come from this object.
 *
 * Conventions the reader relies on: a variable without `default` is optional
 * (Type.Optional); `errorMessage` replaces the generated problem sentence; a
 * Refine's message is the problem when the refinement fails; `x-secret`
 * values are never quoted in a problem. Enumerated words are accepted in any
 * case; lists are comma-separated.
 */

/** The whole environment: one object per section, one property per variable, in the order problems are reported. */
export const CONFIG_SCHEMA = Type.Object({ server, database, api, quickstart, metrics, messages, limits, portal, audit, tracing, webhooks, mail, requestLogs });

/** The environment as read: every value typed and within its bounds (or its default, when it was refused). */
export type EnvironmentValues = Static<typeof CONFIG_SCHEMA>;
