import { createContext, useContext, useMemo, type ReactNode } from 'react';

export type FormatPrefs = { language: string; timeZone: string };

const DEFAULT_PREFS: FormatPrefs = { language: 'en-US', timeZone: 'UTC' };
const FormatContext = createContext<FormatPrefs>(DEFAULT_PREFS);

/** The signed-in user's language and time zone, for every date and number the dashboard shows. */
export function FormatProvider({ prefs, children }: { prefs: FormatPrefs | undefined; children: ReactNode }) {
  return <FormatContext.Provider value={prefs ?? DEFAULT_PREFS}>{children}</FormatContext.Provider>;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  // Days up to a year, as in spec §4's "Renews in 30 days": months would hide how near a renewal is.
  ['year', 365 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

export type Formatters = {
  money: (n: number) => string;
  date: (iso: string) => string;
  dateTime: (iso: string) => string;
  /**
   * A UTC calendar day ("2026-11-28", as the uptime rows name them) in the user's language, e.g.
   * "Nov 28, 2026"; not moved to the user's time zone, which would show the day before or after.
   */
  day: (ymd: string) => string;
  /** The same, without the year: "Nov 28", for a chart's axis. */
  shortDay: (ymd: string) => string;
  /** "in 30 days", "2 days ago": the largest unit that fits. */
  relative: (iso: string, now?: number) => string;
  isFuture: (iso: string) => boolean;
};

export function makeFormatters({ language, timeZone }: FormatPrefs): Formatters {
  const money = new Intl.NumberFormat(language, { style: 'currency', currency: 'USD' });
  const date = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone });
  const dateTime = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  const day = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' });
  const shortDay = new Intl.DateTimeFormat(language, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const rtf = new Intl.RelativeTimeFormat(language, { numeric: 'always' });
  return {
    money: (n) => money.format(n),
    date: (iso) => date.format(new Date(iso)),
    dateTime: (iso) => dateTime.format(new Date(iso)),
    day: (ymd) => day.format(new Date(`${ymd}T00:00:00Z`)),
    shortDay: (ymd) => shortDay.format(new Date(`${ymd}T00:00:00Z`)),
    relative: (iso, now = Date.now()) => {
      const diff = new Date(iso).getTime() - now;
      const [unit, ms] = UNITS.find(([, ms]) => Math.abs(diff) >= ms) ?? ['minute', 60_000];
      return rtf.format(Math.round(diff / ms), unit);
    },
    isFuture: (iso) => new Date(iso).getTime() > Date.now(),
  };
}

/** The user's language and time zone, for what the formatters do not cover. */
export function useFormatPrefs(): FormatPrefs {
  return useContext(FormatContext);
}

export function useFormat(): Formatters {
  const prefs = useContext(FormatContext);
  return useMemo(() => makeFormatters(prefs), [prefs]);
}
