/**
 * The one place in test code (test/, e2e/, src/**\/*.test.ts) that waits by the clock (issue 32,
 * item 7); eslint.config.js refuses setTimeout, setInterval and waitForTimeout everywhere else.
 *
 * A test waits for a signal (an event, a line printed, a request seen) or for a condition it
 * polls with `until`, never for a fixed time that is only a guess at how long something takes.
 * Where the code has a clock of its own (a row's run_at, the monitor's last sweep, a page's
 * page.clock), the test moves that clock instead of waiting for it.
 *
 * The exceptions are named, and say why: `letTimePass` and `repeatEvery`, where elapsed time is
 * itself the behaviour under test (a job that runs longer than its lease, a client that sends a
 * byte now and then, a stopped worker that must claim nothing for a while).
 */

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `check` every `everyMs` until it gives a value (not undefined or false) and returns it;
 * throws "timed out waiting for <what>" after `ms`. A `check` that throws fails at once.
 */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 60_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(everyMs);
  }
}

/**
 * Reads every `everyMs` until `done` holds of the reading or `ms` have passed, and returns the
 * last reading either way: for a test that asserts on what it read (the assertion then says what
 * was seen instead of "timed out").
 */
export async function readUntil<T>(read: () => T | Promise<T>, done: (v: T) => boolean, ms: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await pause(everyMs);
  }
}

/** True once `p` resolves (its rejection is thrown), false if it has not after `ms`: a deadline for an event, so behaviour is asserted, never speed. */
export function resolvesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

/**
 * THE EXCEPTION: waits `ms` because elapsed time is the behaviour under test, not a guess at
 * how long something takes. `why` says which (it is for the reader; nothing checks it).
 */
export function letTimePass(ms: number, why: string): Promise<void> {
  void why;
  return pause(ms);
}

/**
 * THE EXCEPTION, repeated: runs `act` every `ms` (a slow client's byte now and then) until the
 * returned function is called. `why` says why elapsed time is the behaviour under test.
 */
export function repeatEvery(ms: number, why: string, act: () => void): () => void {
  void why;
  const timer = setInterval(act, ms);
  return () => clearInterval(timer);
}
