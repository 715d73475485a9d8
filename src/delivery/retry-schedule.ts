/**
 * The delay before the retry after `attempts` failed attempts of a schedule
 * (WEBHOOK_RETRY_SCHEDULE, MAIL_RETRY_SCHEDULE): the schedule's entry ±20 %
 * jitter, so destinations that failed together do not come back together;
 * undefined once the schedule is spent (given up). `random` is in [0, 1).
 */
export function scheduledRetryDelayMs(schedule: readonly number[], attempts: number, random: number): number | undefined {
  const delay = schedule[attempts - 1];
  return delay === undefined ? undefined : Math.round(delay * (0.8 + 0.4 * random));
}
