import { describe, expect, it } from 'vitest';
import { browserName } from './browser-name';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

// Issue 42, item 3: the device list (Settings › Security) and the security e-mails name a device by
// this function, and a User-Agent is whatever the client sent.
describe('browserName', () => {
  it("names a browser and system from the parser's lists, with a major version when asked", () => {
    expect(browserName(chrome)).toBe('Chrome on Windows');
    expect(browserName(chrome, { version: true })).toBe('Chrome 131 on Windows');
    expect(browserName('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', { version: true })).toBe('Firefox 128 on Linux');
  });

  it("never repeats the header's own text, which the parser takes as the name of a browser it does not know", () => {
    expect(browserName('call +1-555-0100 visit https://evil.example now')).toBeUndefined();
    expect(browserName('Call +1-555-0100 visit https://evil.example/x (Windows NT 10.0; Win64; x64)', { version: true })).toBeUndefined();
    expect(browserName('<script>alert(1)</script>/1 (x)')).toBeUndefined();
    expect(browserName(`${chrome} OPR/visit-https://evil.example/`, { version: true })).toBe('Opera on Windows');
    expect(browserName(`${chrome} OPR/115evil.example`, { version: true })).toBe('Opera on Windows');
    expect(browserName(null)).toBeUndefined();
  });
});
