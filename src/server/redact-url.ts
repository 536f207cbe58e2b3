/** What is printed instead of a URL that does not parse: none of its text, which may hold a password. */
export const UNREADABLE_URL = '<a URL that could not be read>';

// Query parameters whose values are shown; any other's value may be a credential (password,
// sslpassword, sslkey, a token) and is replaced, so that a new one is hidden until added here.
const SHOWN_PARAMETERS = new Set([
  'application_name',
  'client_encoding',
  'connect_timeout',
  'dbname',
  'host',
  'hostaddr',
  'options',
  'port',
  'sslmode',
  'sslnegotiation',
  'target_session_attrs',
  'user',
]);

/**
 * A URL (DATABASE_URL, SMTP_URL, ...) as it may be printed or logged: its password, the values of
 * its query parameters but those above, and its fragment replaced by `***`. Parsed by the WHATWG URL
 * parser, as pg's own connection-string parser does. A string that does not parse gives
 * UNREADABLE_URL, and so does one whose `@` the parser did not take as the end of the credentials
 * (a password with an unencoded `/`, `?` or `#`, read as the port and path, query or fragment) and
 * one with white space or control characters, which the parser would drop or encode.
 */
export function redactUrl(raw: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return UNREADABLE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return UNREADABLE_URL;
  }
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) return UNREADABLE_URL;
  const shown = (name: string) => SHOWN_PARAMETERS.has(name.toLowerCase());
  const params = [...url.searchParams];
  const hidden = params.some(([name]) => !shown(name));
  // Nothing to hide: the text as the operator wrote it, which the parser read the same way.
  if (!url.password && !hidden && !url.hash) return raw;
  if (url.password) url.password = '***';
  if (hidden) url.search = new URLSearchParams(params.map(([name, value]) => [name, shown(name) ? value : '***'])).toString();
  if (url.hash) url.hash = '***';
  return url.href;
}
