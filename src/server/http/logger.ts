type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Structured logs: one JSON object per line on stdout. */
export type Logger = Record<Level, (msg: string, fields?: Record<string, unknown>) => void>;

export function createLogger(level: Level | 'silent', write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const at =
    (l: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (order[l] < order[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
