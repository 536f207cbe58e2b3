import { logLineTime } from '@shared/node-logs';

/** Each line's time: its own, or for a line without one the time of the line before it, as node-logs reads them. */
function lineTimes(lines: readonly string[]): (number | undefined)[] {
  let at: number | undefined;
  return lines.map((line) => (at = logLineTime(line) ?? at));
}

/** Where following goes on from: the time of the last line shown (node-logs' `since`), or undefined when no line has one. */
export function followCursor(shown: readonly string[]): number | undefined {
  return lineTimes(shown).at(-1);
}

/**
 * The lines shown after a followed read. node-logs answers the lines at or after `since`, so the
 * answer starts again with those of the last shown time the page already has: as many as the page
 * has of that time are dropped from its start. Without a cursor (nothing shown, or no line with a
 * time) the answer replaces what is shown. At most `keep` lines, the oldest dropped; `added` is how
 * many new lines came.
 */
export function appendFollowed(
  shown: readonly string[],
  answer: readonly string[],
  since: number | undefined,
  keep: number,
): { lines: string[]; added: number } {
  if (since === undefined) return { lines: answer.slice(-keep), added: answer.length };
  const shownTimes = lineTimes(shown);
  let have = 0;
  while (have < shown.length && shownTimes[shown.length - 1 - have] === since) have++;
  const answerTimes = lineTimes(answer);
  let again = 0;
  while (again < have && again < answer.length && answerTimes[again] === since) again++;
  const fresh = answer.slice(again);
  return { lines: [...shown, ...fresh].slice(-keep), added: fresh.length };
}

// toLowerCase of a whole line writes a final sigma (ς) where a lone letter gives σ: one for both.
const fold = (s: string) => s.toLowerCase().replace(/ς/g, 'σ');

/** Whether `line` holds `query`, ignoring case, as plain text. */
export function lineMatches(line: string, query: string): boolean {
  return fold(line).includes(fold(query));
}

/**
 * Where `query` occurs in `line`, ignoring case, as plain text (never a pattern): [start, end)
 * offsets into `line`, in order, not overlapping; none for an empty query.
 */
export function matchRanges(line: string, query: string): [number, number][] {
  const q = fold(query);
  if (!q) return [];
  const folded = fold(line);
  const ranges: [number, number][] = [];
  if (folded.length === line.length) {
    for (let j = folded.indexOf(q); j >= 0; j = folded.indexOf(q, j + q.length)) ranges.push([j, j + q.length]);
    return ranges;
  }
  // Lower-casing lengthened a character (İ is i and a combining dot): fold a character at a time,
  // remembering where each folded unit came from and where its character ends in `line`.
  let text = '';
  const start: number[] = [];
  const end: number[] = [];
  let at = 0;
  for (const ch of line) {
    const f = fold(ch);
    for (let k = 0; k < f.length; k++) {
      start.push(at);
      end.push(at + ch.length);
    }
    text += f;
    at += ch.length;
  }
  for (let j = text.indexOf(q); j >= 0; j = text.indexOf(q, j + q.length)) {
    // Two matches within one lengthened character would overlap: the second starts where the first ends.
    const from = Math.max(start[j]!, ranges.at(-1)?.[1] ?? 0);
    const to = end[j + q.length - 1]!;
    if (to > from) ranges.push([from, to]);
  }
  return ranges;
}
