import { Type } from 'typebox';
import { parseDatabaseUrl } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): the database everything is stored in. */

const DATABASE_POOL_SIZE_MAX = 1000;

export const database = Type.Object(
  {
    DATABASE_URL: Type.Refine(
      Type.String({
        default: 'sqlite:./data/store.db',
        'x-secret': true,
        description:
          '`sqlite:<path>` (relative to the working directory; the folder is created) or `sqlite:///<absolute path>`; or ' +
          '`postgres://user:password@host:port/database` (also `postgresql://`, any URL node-postgres accepts, e.g. `?sslmode=require`), never logged or echoed in errors',
      }),
      (url) => parseDatabaseUrl(url).kind !== 'invalid',
      (url) => {
        const parsed = parseDatabaseUrl(url);
        return parsed.kind === 'invalid' ? parsed.problem : '';
      },
    ),
    DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: DATABASE_POOL_SIZE_MAX, default: 10, description: 'PostgreSQL connections per process' }),
    SQLITE_SYNCHRONOUS: Type.Enum(['full', 'normal'], {
      default: 'full',
      description:
        '`full`: a 204 survives power loss; `normal`: several times faster commits, but the last acknowledged cancels can be lost on power loss (see DEPLOYMENT.md for the measured figure)',
    }),
  },
  { title: 'Database' },
);
