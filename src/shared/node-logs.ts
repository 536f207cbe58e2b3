/**
 * The Logs dialog as a console (issue 36): what node-logs accepts beyond the service, how long and
 * how often the dialog follows a node, and how a line's time is read, one rule for the server's
 * `since` and the page's cursor. The lines themselves: node-health.ts (LOG_LINES, LOG_LINE_MAX).
 */

/** node-logs answers at most this many lines (its `tail`), and Download saves this many. */
export const LOG_TAIL_MAX = 1000;
/** Following asks for new lines this often while the dialog is open. */
export const LOG_FOLLOW_SECONDS = 5;
/** ...and stops by itself after this long: nobody reads an unattended console, and each read asks the engine. */
export const LOG_FOLLOW_MINUTES = 10;
/** The dialog keeps at most this many lines, the oldest dropped first, however long it follows. */
export const LOG_KEEP_LINES = 1000;
/** The longest search the dialog takes: a line is at most LOG_LINE_MAX characters. */
export const LOG_SEARCH_MAX = 200;

export const nodeLogsMessages = {
  tail: `tail must be a whole number from 1 to ${LOG_TAIL_MAX}`,
  since: 'since must be a date and time such as 2026-01-31T09:30:00Z',
  unreadable: "The node's logs could not be read. Please try again in a minute.",
  tooManyReads: (seconds: number) => `Too many log requests. Please try again in ${seconds} seconds.`,
  tooManyDownloads: (seconds: number) => `Too many log downloads. Please try again in ${seconds} seconds.`,
};

/** The file Download saves: the service's name, which service names keep to [A-Za-z0-9_-] anyway. */
export function logsFileName(serviceName: string): string {
  return `${serviceName.replace(/[^A-Za-z0-9_-]/g, '-') || 'node'}-logs.txt`;
}

// RFC 3339 as the engines print it: Docker's RFC3339Nano, the agent's seconds, the simulated node's
// milliseconds. Bounded quantifiers only, so that a hostile string costs nothing to refuse.
const STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})/;

/**
 * The time at the start of `text` (an RFC 3339 date and time with its offset), in milliseconds,
 * nanoseconds cut to milliseconds; undefined when there is none or it names no real instant
 * (Date would read 2026-02-30 as 2 March).
 */
function stampAt(text: string): { ms: number; length: number } | undefined {
  const m = STAMP.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const frac = m[7] ?? '';
  const zone = m[8]!;
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, Number(frac.padEnd(3, '0').slice(0, 3)));
  // Date rolls 2026-02-30 over to 2 March: a day or month that moved is not a date.
  if (at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (zone !== 'Z') {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offset = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const ms = at.getTime() - offset;
  return { ms, length: m[0].length };
}

/** When a log line was written, from the time every driver puts at its start (milliseconds); undefined for a line without one. */
export function logLineTime(line: string): number | undefined {
  const stamp = stampAt(line);
  // The time is followed by the line's text, or is all of it.
  return stamp && (line.length === stamp.length || line[stamp.length] === ' ') ? stamp.ms : undefined;
}

/** node-logs' `since`: a whole RFC 3339 date and time, in milliseconds, or undefined when it is not one. */
export function parseSince(value: string): number | undefined {
  // Longer than the longest form (nanoseconds and an offset) is no time; refused before it is read.
  if (value.length > 40) return undefined;
  const stamp = stampAt(value);
  return stamp && stamp.length === value.length ? stamp.ms : undefined;
}
