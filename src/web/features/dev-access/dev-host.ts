/** A development host is one whose name ends with one of the configured preview suffixes (spec §4). */
export function isDevHost(hostname: string, suffixes: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  return suffixes.some((s) => s !== '' && host.endsWith(s.toLowerCase()));
}
