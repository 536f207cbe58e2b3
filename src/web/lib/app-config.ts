import { useSyncExternalStore } from 'react';

/** What the server tells the browser at run time (GET /config.json), so one build serves any deployment. */
export type AppConfig = {
  supabaseUrl: string;
  supabaseAnonKey: string;
  registrationEnabled: boolean;
  devHostSuffixes: string[];
  statusUrl: string | null;
  /** SUSPENSION_DAYS: the terms' billing policy names it. */
  suspensionDays: number;
  /** The free test payment provider was chosen on purpose: every page says so (TestPaymentsBanner). */
  testPayments: boolean;
  /** NOWPAYMENTS_* is set: Add Funds offers "Pay with crypto" (decision 050). */
  cryptoPayments: boolean;
};

let pending: Promise<AppConfig> | undefined;

export function fetchAppConfig(): Promise<AppConfig> {
  pending ??= fetch('/config.json').then((r) => {
    if (!r.ok) throw new Error(`config.json answered ${r.status}`);
    return r.json() as Promise<AppConfig>;
  });
  // A failed fetch must not stick: the next caller tries again.
  pending.catch(() => (pending = undefined));
  return pending;
}

type ConfigState = { data: AppConfig | undefined; isError: boolean };

// A tiny store rather than a query: every public page reads the config, and TanStack Query stays
// out of their first load (it comes with the dashboard).
let state: ConfigState = { data: undefined, isError: false };
const serverState: ConfigState = { data: undefined, isError: false };
const listeners = new Set<() => void>();
let started = false;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!started) {
    started = true;
    const set = (s: ConfigState) => {
      state = s;
      for (const l of listeners) l();
    };
    fetchAppConfig().then(
      (data) => set({ data, isError: false }),
      () => set({ data: undefined, isError: true }),
    );
  }
  return () => listeners.delete(listener);
}

/** The run-time config: undefined while it loads (and while prerendering), isError if it could not be read. */
export function useAppConfig(): ConfigState {
  return useSyncExternalStore(
    subscribe,
    () => state,
    () => serverState,
  );
}
