/** The longest User-Agent looked at: real ones are a few hundred characters; a longer one is read only this far. */
const USER_AGENT_MAX_LENGTH = 512;

/*
 * Browsers in the order they must be tried: each one's token also appears in
 * the User-Agent of those before it (Edge and Opera say "Chrome", Chrome
 * says "Safari"), so the first match is the browser.
 */
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:(?:Headless)?Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

/* Likewise: Android says "Linux", iOS says "like Mac OS X", ChromeOS says "X11". */
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * A short, honest description of the browser behind a User-Agent, for the
 * Sessions list: "Firefox on Linux", "Safari on iOS", "Chrome", "Windows", or
 * "Unknown browser". Only these fixed names are ever returned, so nothing a
 * client sends is stored or shown (the header is the client's to forge).
 */
export function describeUserAgent(userAgent: string | undefined): string {
  const text = (userAgent ?? '').slice(0, USER_AGENT_MAX_LENGTH);
  const browser = BROWSERS.find(([pattern]) => pattern.test(text))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(text))?.[1];
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`;
  return browser ?? system ?? 'Unknown browser';
}
