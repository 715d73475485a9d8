/** Distinct texts remembered at most (then forgotten all at once): a busy host sees the same few again and again. */
const TEXTS_REMEMBERED = 1024;

/**
 * `compute` remembered per distinct text, for the texts a busy host repeats
 * (request targets, user agents, addresses): at most TEXTS_REMEMBERED, then
 * all forgotten at once, which costs nothing per call, unlike an LRU's
 * reordering. With the identity, the first copy of each text is kept.
 */
export function textMemo(compute: (text: string) => string): (text: string) => string {
  const known = new Map<string, string>();
  return (text) => {
    let stored = known.get(text);
    if (stored === undefined) {
      if (known.size >= TEXTS_REMEMBERED) known.clear();
      stored = compute(text);
      known.set(text, stored);
    }
    return stored;
  };
}

/** `form`, the last text's answer looked up first (by identity, then by value). */
export function lastOf(form: (text: string) => string): (text: string) => string {
  let last: string | undefined;
  let answer = '';
  return (text) => {
    if (text !== last) {
      answer = form(text);
      last = text;
    }
    return answer;
  };
}
