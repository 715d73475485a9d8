/** An ISO 8601 instant as people read it on the portal's tables: `2026-11-24 19:05 UTC`. */
export function formatInstant(iso: string | undefined, absent = '—'): string {
  if (iso === undefined) return absent;
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
