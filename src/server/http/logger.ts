import { pino } from 'pino';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Structured logs: one JSON object per line on stdout, from pino. */
export type Logger = Record<Level, (msg: string, fields?: Record<string, unknown>) => void>;

/** An Error as a log field: its type, message, stack, and the causes beneath it. */
const errorField = (v: unknown) => (v instanceof Error ? pino.stdSerializers.errWithCause(v) : v);

/**
 * pino at `level`, writing through `write` (stdout by default, a test's array otherwise). Each line
 * has the time (ISO), the level by name, `msg` and the fields.
 */
export function createLogger(level: Level | 'silent', write?: (line: string) => void): Logger {
  const log = pino(
    {
      level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: errorField, error: errorField },
    },
    write ? { write: (s: string) => write(s.trimEnd()) } : pino.destination({ dest: 1, sync: true }),
  );
  const at =
    (l: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      log[l](fields, msg);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** `logger` with `fields` on every line it writes: a job's lines name the job and the request that enqueued it. */
export function withFields(logger: Logger, fields: Record<string, unknown>): Logger {
  const at =
    (l: Level) =>
    (msg: string, more: Record<string, unknown> = {}) =>
      logger[l](msg, { ...fields, ...more });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
