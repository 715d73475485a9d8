/** Edit distance (insertions, deletions, substitutions and swaps of neighbours): how far a typo is from a word. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The known word closest to a mistyped one, if it is close enough to be the
 * likely intent (a third of its length, at least one edit), else undefined:
 * "did you mean" must not propose something unrelated.
 */
function closest(typed: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const d = distance(typed.toLowerCase(), word.toLowerCase());
    if (best === undefined || d < best.distance) best = { word, distance: d };
  }
  if (best === undefined) return undefined;
  return best.distance <= Math.max(1, Math.floor(best.word.length / 3)) ? best.word : undefined;
}

/** " (did you mean keys create?)" or nothing. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const word = closest(typed, known);
  return word === undefined ? '' : ` (did you mean ${word}?)`;
}
