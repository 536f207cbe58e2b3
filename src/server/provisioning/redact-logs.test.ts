import { describe, expect, it } from 'vitest';
import { LOG_LINE_MAX, REDACTED } from '../../shared/node-health';
import { redactLogs } from './redact-logs';

const KEY = 'Ab+/cdEFghIJklMNopQRstUVwxYZ0123456789abcde=';
/** A key whose encodings hold base64's own + and / (and base64url's - and _) at every alignment. */
const SLASHY = 'node??key>>with??slashes>>0123456789';
const b64Of = (s: string) => Buffer.from(s).toString('base64');
/** The encoding of before + key + after, each character that carries a bit of the key (and the padding after it) replaced. */
const redacted = (encoded: string, before: string, after: string, key = KEY) => {
  const from = Math.floor((Buffer.byteLength(before) * 8) / 6);
  const to = Math.ceil(((Buffer.byteLength(before) + Buffer.byteLength(key)) * 8) / 6);
  return `${encoded.slice(0, from)}${REDACTED}${after ? encoded.slice(to) : ''}`;
};

describe('redactLogs', () => {
  it('hides the key as it is, in base64 and URL-encoded', () => {
    const b64 = Buffer.from(KEY).toString('base64');
    const lines = [
      `config: key=${KEY}`,
      `b64=${b64} and unpadded ${b64.replace(/=+$/, '')}`,
      `url=${encodeURIComponent(KEY)}`,
      `lower=${encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`,
      'nothing secret here',
    ];
    const out = redactLogs(lines, KEY);
    expect(out[0]).toBe(`config: key=${REDACTED}`);
    expect(out[1]).toBe(`b64=${REDACTED} and unpadded ${REDACTED}`);
    expect(out[2]).toBe(`url=${REDACTED}`);
    expect(out[3]).toBe(`lower=${REDACTED}`);
    expect(out[4]).toBe('nothing secret here');
    for (const line of out) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(b64.replace(/=+$/, ''));
    }
  });

  // Item 5 of issue 33: the key inside a longer encoding starts 0, 1 or 2 bytes into a 3-byte
  // group, and each alignment encodes it to different characters.
  describe('inside a longer base64 string, at each alignment', () => {
    it.each([
      [0, 'abc', '-tail'],
      [1, 'k', '-tail'],
      [2, 'ke', '-tail'],
      [1, 'key=', ''],
      [2, 'user:', ''],
    ])('offset %i: "%s" + key + "%s"', (offset, before, after) => {
      expect(before.length % 3).toBe(offset);
      const encoded = b64Of(`${before}${KEY}${after}`);
      const [out] = redactLogs([`data=${encoded} end`], KEY);
      expect(out).toBe(`data=${redacted(encoded, before, after)} end`);
      expect(out).not.toContain(encoded);
    });

    it('in an HTTP Basic header, and in base64url', () => {
      const basic = b64Of(`node:${KEY}`);
      expect(redactLogs([`Authorization: Basic ${basic}`], KEY)).toEqual([`Authorization: Basic ${redacted(basic, 'node:', '')}`]);
      for (const before of ['', 'k', 'ke']) {
        const url = Buffer.from(`${before}${SLASHY}-tail`).toString('base64url');
        expect(url).toMatch(/[-_]/);
        expect(redactLogs([`token=${url}`], SLASHY)).toEqual([`token=${redacted(url, before, '-tail', SLASHY)}`]);
      }
    });
  });

  it('hides the key in JSON written with escaped slashes, as it is and in base64 at each alignment', () => {
    const escaped = (s: string) => s.replaceAll('/', '\\/');
    expect(redactLogs([`{"key":"${escaped(KEY)}","n":1}`, `{"key":"${KEY}"}`], KEY)).toEqual([`{"key":"${REDACTED}","n":1}`, `{"key":"${REDACTED}"}`]);
    for (const before of ['', 'k', 'ke']) {
      const encoded = b64Of(`${before}${SLASHY}`);
      expect(encoded).toContain('/');
      expect(redactLogs([`{"auth":"${escaped(encoded)}"}`], SLASHY)).toEqual([`{"auth":"${redacted(encoded, before, '', SLASHY)}"}`]);
    }
  });

  it('leaves ordinary text and other encodings untouched', () => {
    const lines = [
      'node started: height 123456, peers 8',
      `other=${b64Of('not the key at all, but as long as one')}`,
      'Authorization: Basic dXNlcjpodW50ZXIy',
      'path=/var/lib/node/data\\/x {"a":"b\\/c"}',
      'key=Ab+/cdEF partial, not the key',
    ];
    expect(redactLogs(lines, KEY)).toEqual(lines);
  });

  it('cuts long lines after redacting, so no part of a key is left at the cut', () => {
    const line = `${'x'.repeat(LOG_LINE_MAX - 2)}${KEY}`;
    const [out] = redactLogs([line], KEY);
    expect(out).toBe(`${'x'.repeat(LOG_LINE_MAX - 2)}${REDACTED.slice(0, 2)}…`);
    expect(redactLogs(['y'.repeat(LOG_LINE_MAX + 50)], null)[0]).toHaveLength(LOG_LINE_MAX + 1);
  });

  it('removes terminal escapes and treats regular-expression characters in a key literally', () => {
    expect(redactLogs(['\u001b[32mgreen\u001b[0m'], null)).toEqual(['green']);
    expect(redactLogs(['a.b a+b'], 'a+b')).toEqual([`a.b ${REDACTED}`]);
  });
});
