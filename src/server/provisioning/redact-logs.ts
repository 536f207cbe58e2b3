import { LOG_LINE_MAX, REDACTED } from '../../shared/node-health';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Colours and cursor moves: a terminal's, not a reader's.
// eslint-disable-next-line no-control-regex -- the escape character is what it removes
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * What a node's key looks like in its output: as it is, in base64 (padded and not, as a node may
 * print it inside a longer encoding) and URL-encoded (either case of hex digits, as form
 * encoding and encodeURIComponent write it). Longest first, so that no form is half-replaced.
 */
function keyPattern(key: string): RegExp | undefined {
  if (!key) return undefined;
  const b64 = Buffer.from(key, 'utf8').toString('base64');
  const forms = new Set([key, b64, b64.replace(/=+$/, ''), encodeURIComponent(key)]);
  const alternatives = [...forms]
    .filter((f) => f.length > 0)
    .sort((a, b) => b.length - a.length)
    // %2B and %2b are one encoding.
    .map((f) => escapeRegExp(f).replace(/%([0-9A-F])([0-9A-F])/g, (_, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`));
  return new RegExp(alternatives.join('|'), 'g');
}

/**
 * A node's log lines as its owner may read them: the key redacted in every form above, terminal
 * escapes removed, and each line cut to LOG_LINE_MAX characters (after redacting, so that a cut
 * never leaves part of a key).
 */
export function redactLogs(lines: readonly string[], key: string | null): string[] {
  const pattern = key ? keyPattern(key) : undefined;
  return lines.map((line) => {
    let out = line.replace(ANSI, '');
    if (pattern) out = out.replace(pattern, REDACTED);
    return out.length > LOG_LINE_MAX ? `${out.slice(0, LOG_LINE_MAX)}…` : out;
  });
}
