import { lazy, useSyncExternalStore, type ComponentType } from 'react';

// True while the browser shows the page it loaded: React hydrates Suspense boundaries after the
// first commit, so "hydrating" lasts until the first client-side navigation (see App).
let onFirstPage = typeof window !== 'undefined';

/** Called on the first client-side navigation: from then on, deferred parts load at once. */
export function leftFirstPage(): void {
  onFirstPage = false;
}

let interaction: Promise<void> | undefined;

/**
 * The visitor's first sign of life anywhere on the page: a pointer moving or pressing, a touch, a
 * key, a focus. A moving pointer counts so that the code is there before a click on a (still
 * disabled) submit button.
 */
function firstInteraction(): Promise<void> {
  interaction ??= new Promise((resolve) => {
    const events = ['pointermove', 'pointerdown', 'keydown', 'focusin', 'touchstart'] as const;
    const go = () => {
      for (const e of events) document.removeEventListener(e, go, true);
      resolve();
    };
    for (const e of events) document.addEventListener(e, go, { capture: true, passive: true });
  });
  return interaction;
}

/**
 * A part of a prerendered page whose code loads on the visitor's first interaction rather than
 * with the page: its server HTML stays as it is (React leaves a Suspense boundary dehydrated while
 * its code is missing) and comes alive when the code arrives. Rendered after a client-side
 * navigation, it loads at once. Only for parts the page shows from its first paint (a part that
 * appears later has no server HTML and would wait behind its fallback). Wrap it in <Suspense>.
 */
export function deferUntilInteraction<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  return lazy(async () => {
    if (onFirstPage) await firstInteraction();
    return { default: await load() };
  });
}

const noSubscription = () => () => undefined;

/** False while prerendering and hydrating, true once the page runs: a form's submit stays disabled until its handler exists. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
