import { describe, expect, it } from 'vitest';
import { LOG_LINE_MAX, REDACTED } from '../../shared/node-health';
import { redactLogs } from './redact-logs';

const KEY = 'Ab+/cdEFghIJklMNopQRstUVwxYZ0123456789abcde=';

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
