import { describe, expect, it } from 'vitest';
import { appendFollowed, followCursor, lineMatches, matchRanges } from './log-lines';

const T1 = '2026-01-31T09:30:00Z';
const T2 = '2026-01-31T09:30:01Z';
const t = (iso: string) => new Date(iso).getTime();

describe('following', () => {
  it('goes on from the time of the last line, a line without one taking the time before it', () => {
    expect(followCursor([`${T1} a`, `${T2} b`, '  continued'])).toBe(t(T2));
    expect(followCursor([])).toBeUndefined();
    expect(followCursor(['no time', 'at all'])).toBeUndefined();
  });

  it('drops the lines of the last time the page has, which the answer starts with again, and keeps the new ones of that time', () => {
    const shown = [`${T1} a`, `${T2} b`, `${T2} c`];
    // Printed within the same second as b and c, after them: d is new.
    const answer = [`${T2} b`, `${T2} c`, `${T2} d`, `${T2} e`];
    expect(appendFollowed(shown, answer, t(T2), 100)).toEqual({ lines: [...shown, `${T2} d`, `${T2} e`], added: 2 });
    expect(appendFollowed(shown, [`${T2} b`, `${T2} c`], t(T2), 100)).toEqual({ lines: shown, added: 0 });
    expect(appendFollowed(shown, [], t(T2), 100)).toEqual({ lines: shown, added: 0 });
  });

  it('keeps at most `keep` lines, the oldest dropped', () => {
    const shown = Array.from({ length: 5 }, (_, i) => `${T1} ${i}`);
    const { lines, added } = appendFollowed(shown, [`${T1} 4`, `${T2} 5`, `${T2} 6`], t(T1), 4);
    expect(lines).toEqual([`${T1} 3`, `${T1} 4`, `${T2} 5`, `${T2} 6`]);
    expect(added).toBe(2);
  });

  it('replaces what is shown when there is no cursor to go on from', () => {
    expect(appendFollowed([], [`${T1} a`], undefined, 100)).toEqual({ lines: [`${T1} a`], added: 1 });
    expect(appendFollowed(['x'], ['x', 'y', 'z'], undefined, 2)).toEqual({ lines: ['y', 'z'], added: 3 });
  });
});

describe('search', () => {
  it('finds plain text whatever its case, never as a pattern', () => {
    expect(lineMatches('config: key=••••', 'KEY=')).toBe(true);
    expect(lineMatches('heartbeat 100: synced', 'heartbeat 1.0')).toBe(false);
    expect(lineMatches('a (b', '(')).toBe(true);
    expect(lineMatches('ΟΔΟΣ', 'οδοσ')).toBe(true);
    expect(matchRanges('Key key KEY', 'key')).toEqual([
      [0, 3],
      [4, 7],
      [8, 11],
    ]);
    expect(matchRanges('a.*b', '.*')).toEqual([[1, 3]]);
    expect(matchRanges('abc', '')).toEqual([]);
  });

  it('marks the characters of the line even where lower-casing lengthens one', () => {
    // İ lower-cases to two code units: the offsets still point into the line as it is.
    const line = 'İstanbul: İzmir';
    const ranges = matchRanges(line, 'İZMIR');
    expect(ranges.map(([a, b]) => line.slice(a, b))).toEqual(['İzmir']);
    expect(matchRanges(line, 'STANBUL').map(([a, b]) => line.slice(a, b))).toEqual(['stanbul']);
  });
});
