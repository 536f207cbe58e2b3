import Bowser from 'bowser';

// A User-Agent is whatever the client sent (issue 42). Bowser names a browser it does not know after
// the header's own text, and reads some versions (Opera's "OPR/...") as any run of characters, so
// only names on Bowser's own lists and a number as the version are ever shown.
const knownBrowsers = new Set(Object.values(Bowser.BROWSER_MAP));
const knownSystems = new Set(Object.values(Bowser.OS_MAP));
const MAJOR_VERSION = /^\d{1,4}(?=\.|$)/;

/**
 * "Firefox on Windows" (or "Firefox 128 on Windows" with the major version) from a User-Agent
 * header, for the device list and the security e-mails; undefined when it names no browser on
 * Bowser's list. The answer holds only names from those lists and digits, never the header's text.
 */
export function browserName(userAgent: string | null | undefined, opts: { version?: boolean } = {}): string | undefined {
  if (!userAgent) return undefined;
  const { browser, os } = Bowser.parse(userAgent);
  if (!browser.name || !knownBrowsers.has(browser.name)) return undefined;
  const major = opts.version ? MAJOR_VERSION.exec(browser.version ?? '')?.[0] : undefined;
  const name = major ? `${browser.name} ${major}` : browser.name;
  return os.name && knownSystems.has(os.name) ? `${name} on ${os.name}` : name;
}
