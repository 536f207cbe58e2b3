import Bowser from 'bowser';

/**
 * "Firefox on Windows" (or "Firefox 128 on Windows" with the major version) from a User-Agent
 * header, for the device list and the security e-mails; undefined when it names no known browser.
 */
export function browserName(userAgent: string | null | undefined, opts: { version?: boolean } = {}): string | undefined {
  if (!userAgent) return undefined;
  const { browser, os } = Bowser.parse(userAgent);
  if (!browser.name) return undefined;
  const name = opts.version && browser.version ? `${browser.name} ${browser.version.split('.')[0]}` : browser.name;
  return os.name ? `${name} on ${os.name}` : name;
}
