import { describe, expect, it } from 'vitest';
import { logLineTime, logsFileName, parseSince } from './node-logs';

const ms = (iso: string) => new Date(iso).getTime();

describe('logLineTime', () => {
  it("reads the time each driver writes at a line's start", () => {
    // The simulated node's milliseconds, Docker's nanoseconds (cut to milliseconds), the agent's seconds.
    expect(logLineTime('2026-01-31T09:30:00.123Z heartbeat 1: synced, 8 peers')).toBe(ms('2026-01-31T09:30:00.123Z'));
    expect(logLineTime('2026-01-31T09:30:00.123456789Z node says hi')).toBe(ms('2026-01-31T09:30:00.123Z'));
    expect(logLineTime('2026-01-31T09:30:00Z gala-node status: ok')).toBe(ms('2026-01-31T09:30:00Z'));
    expect(logLineTime('2026-01-31T10:30:00+01:00 an offset')).toBe(ms('2026-01-31T09:30:00Z'));
    expect(logLineTime('2026-01-31T09:30:00Z')).toBe(ms('2026-01-31T09:30:00Z'));
  });

  it('has none for a line without a time at its start, or with one that is no real instant', () => {
    for (const line of [
      '',
      'panic: at 2026-01-31T09:30:00Z',
      '  at Object.<anonymous> (index.js:1:1)',
      '2026-01-31 09:30:00 a space for the T',
      '2026-01-31T09:30:00Zglued',
      '2026-02-30T09:30:00Z the 30th of February',
      '2026-13-01T09:30:00Z',
      '2026-01-31T24:00:00Z',
      '2026-01-31T09:60:00Z',
      '2026-01-31T09:30:00+24:00',
    ])
      expect(logLineTime(line), line).toBeUndefined();
  });
});

describe('parseSince', () => {
  it('takes a whole RFC 3339 time, and the first years as themselves', () => {
    expect(parseSince('2026-01-31T09:30:00.5Z')).toBe(ms('2026-01-31T09:30:00.500Z'));
    expect(parseSince('2024-02-29T00:00:00-05:30')).toBe(ms('2024-02-29T05:30:00Z'));
    // Date.UTC would read the year 50 as 1950.
    expect(new Date(parseSince('0050-01-01T00:00:00Z')!).toISOString()).toBe('0050-01-01T00:00:00.000Z');
  });

  it('refuses anything else, a very long string at once', () => {
    for (const value of [
      '',
      'yesterday',
      '2026-01-31',
      '2026-01-31T09:30:00',
      '2026-01-31T09:30:00Z ',
      '2026-02-29T00:00:00Z',
      '1700000000',
      `2026-01-31T09:30:00.${'1'.repeat(10)}Z`,
    ])
      expect(parseSince(value), value).toBeUndefined();
    expect(parseSince(`2026-01-31T09:30:00Z${' '.repeat(1_000_000)}`)).toBeUndefined();
  });
});

describe('logsFileName', () => {
  it("is the service's name and -logs.txt, anything a file name should not hold made a hyphen", () => {
    expect(logsFileName('mn-1')).toBe('mn-1-logs.txt');
    expect(logsFileName('../etc/passwd')).toBe('---etc-passwd-logs.txt');
    expect(logsFileName('')).toBe('node-logs.txt');
  });
});
