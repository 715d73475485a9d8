/** Database faults for audit tests. */
import type { DatabaseConfig } from '../../src/config/config.js';
import { runSql } from '../support/raw-sql.js';

/** Makes every audit write fail from now on, as a database fault would. */
export function dropAuditTable(database: DatabaseConfig): Promise<void> {
  return runSql(database, 'DROP TABLE audit_events');
}
