import { LOG_LINE_MAX, REDACTED } from '../../shared/node-health';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Colours and cursor moves: a terminal's, not a reader's.
// eslint-disable-next-line no-control-regex -- the escape character is what it removes
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** Shorter runs of base64 than this are not looked for: they would match ordinary text. */
const MIN_BASE64_RUN = 8;
/** One base64 or base64url character, a slash also as JSON may escape it. */
const B64_CHAR = '(?:[A-Za-z0-9+_-]|\\\\?\\/)';

/**
 * The base64 characters that carry only the key's bits when the key starts `offset` bytes (0, 1
 * or 2) into a longer encoded string, as in an HTTP Basic header or base64("key=" + key): the
 * characters before and after also carry the neighbours' bits, so they differ from one string to
 * the next. Encoding `offset` zero bytes before the key and dropping what they touch gives them.
 */
function base64Core(key: Buffer, offset: number): string {
  const b64 = Buffer.concat([Buffer.alloc(offset), key]).toString('base64');
  return b64.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + key.length) * 8) / 6));
}

/**
 * One alternative of the pattern for a form of the key: its regular-expression characters
 * literal, a slash with or without JSON's escaping backslash (`\/`), and a URL-encoded byte in
 * either case of hex digits (%2B and %2b are one encoding).
 */
function literal(form: string): string {
  return escapeRegExp(form)
    .replace(/\//g, '\\\\?\\/')
    .replace(/%([0-9A-F])([0-9A-F])/g, (_, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`);
}

/**
 * What a node's key looks like in its output: as it is, URL-encoded (either case of hex digits,
 * as form encoding and encodeURIComponent write it), and in base64 or base64url at each of the
 * three alignments it can have inside a longer encoding, with the partial characters at its edges
 * and any padding; every form also with JSON's escaped slashes. Longest first, so that no form
 * is half-replaced.
 */
function keyPattern(key: string): RegExp | undefined {
  if (!key) return undefined;
  const bytes = Buffer.from(key, 'utf8');
  const plain = [...new Set([key, encodeURIComponent(key)])].map(literal);
  const encoded = [0, 1, 2].flatMap((offset) => {
    const core = base64Core(bytes, offset);
    if (core.length < MIN_BASE64_RUN) return [];
    const url = core.replace(/\+/g, '-').replace(/\//g, '_');
    // The character shared with the bytes before the key (none at offset 0), and the one shared
    // with the bytes after it, then the padding when the encoding ends with the key (= or %3D).
    const lead = offset === 0 ? '' : `${B64_CHAR}?`;
    const left = (offset + bytes.length) % 3;
    const trail = left === 0 ? '' : `(?:${B64_CHAR}(?:(?:=|%3[Dd]){${3 - left}})?)?`;
    return [...new Set([core, url])].map((c) => `${lead}${literal(c)}${trail}`);
  });
  const alternatives = [...plain, ...encoded].sort((a, b) => b.length - a.length);
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
