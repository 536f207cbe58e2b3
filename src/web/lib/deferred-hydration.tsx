import { lazy, useSyncExternalStore, type ComponentType } from 'react';

// True from the first script until the page's first render is committed (see App).
let hydrating = typeof window !== 'undefined';

/** Called once the first render is committed: from then on, deferred parts load at once. */
export function hydrationDone(): void {
  hydrating = false;
}

let interaction: Promise<void> | undefined;

/** The visitor's first touch, click, key or focus anywhere on the page. */
function firstInteraction(): Promise<void> {
  interaction ??= new Promise((resolve) => {
    const events = ['pointerdown', 'keydown', 'focusin', 'touchstart'] as const;
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
 * its code is missing) and comes alive when the code arrives. Rendered later (a client-side
 * navigation), it loads at once. Wrap it in <Suspense>.
 */
export function deferUntilInteraction<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  return lazy(async () => {
    if (hydrating) await firstInteraction();
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
