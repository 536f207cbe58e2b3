import { lazy, useSyncExternalStore, type ComponentType } from 'react';

let start!: () => void;
/** Resolves on the visitor's first sign of life, or as soon as the page shown is not the one the browser loaded. */
const started = new Promise<void>((resolve) => (start = resolve));

if (typeof document === 'undefined') {
  // Prerendering: the part's HTML is what the page is written for.
  start();
} else {
  // A pointer moving or pressing, a touch, a key, a focus. A moving pointer counts so that the code
  // is usually there before a click; one that has not moved does not: Chromium sends such a move
  // by itself when the layout changes under where it last saw the pointer (at 0,0 on a new page).
  const events = ['pointermove', 'pointerdown', 'keydown', 'focusin', 'touchstart'] as const;
  const go = (e: Event) => {
    if (e instanceof PointerEvent && e.type === 'pointermove' && e.movementX === 0 && e.movementY === 0) return;
    for (const type of events) document.removeEventListener(type, go, true);
    start();
  };
  for (const e of events) document.addEventListener(e, go, { capture: true, passive: true });
}

/**
 * Called when the page shown stops being the browser's prerendered one: on a client-side
 * navigation or redirect, and when there was no prerendered HTML at all. There is no server HTML
 * to keep then, only a spinner, and no interaction to wait for (a redirect gives none): deferred
 * parts load at once, including any already waiting.
 */
export function leftFirstPage(): void {
  start();
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
    await started;
    return { default: await load() };
  });
}

const liveForms = new WeakSet<HTMLFormElement>();
const sentEarly = new WeakSet<HTMLFormElement>();

// A submit before the form's code arrived (a click on Send) reaches no handler: it is remembered
// here, so that the form answers it once it runs (formArrived).
if (typeof document !== 'undefined') {
  document.addEventListener(
    'submit',
    (e) => {
      if (e.target instanceof HTMLFormElement && !liveForms.has(e.target)) sentEarly.add(e.target);
    },
    true,
  );
}

/**
 * Called by a deferred form when its code runs (in its ref, within the commit that hydrates it):
 * from then on React handles its submits. True when the visitor already asked to send it.
 */
export function formArrived(form: HTMLFormElement): boolean {
  liveForms.add(form);
  return sentEarly.delete(form);
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
