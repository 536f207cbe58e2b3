/** What an authenticator is called when its owner gives it no name of their own. */
export const DEFAULT_FACTOR_NAME = 'Authenticator app';

// Factors enrolled before names were asked for were named after their minute, e.g. "Authenticator 2025-01-31T09:30".
const TIMESTAMP_NAME = /^Authenticator \d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/** The name to enrol a factor under: what the user typed, trimmed, else the default. */
export function factorNameToEnrol(typed: string): string {
  return typed.trim() || DEFAULT_FACTOR_NAME;
}

/** The name to show for a factor: its own, unless it has none or only the old timestamp. */
export function factorLabel(friendlyName: string | undefined): string {
  return !friendlyName || TIMESTAMP_NAME.test(friendlyName) ? DEFAULT_FACTOR_NAME : friendlyName;
}
