import { Worker } from 'node:worker_threads';

const IDLE = 0;
const ARMED = 1;
const FIRED = 2;

/**
 * How long one REST statement may hold the embedded database, where every other request waits
 * for it: a customer's statements take a few milliseconds, and another's page must be answered
 * within half a second even while one caller sends a slow statement after another (two deadlines).
 */
export const DEFAULT_EMBEDDED_STATEMENT_TIMEOUT_MS = 200;

/**
 * Cancels an embedded statement at its deadline. The embedded PostgreSQL runs on the main
 * thread, which a statement holds until it ends; a thread of our own, sharing PostgreSQL's memory,
 * waits out the deadline and raises PostgreSQL's own cancel flags (QueryCancelPending and
 * InterruptPending), which PostgreSQL checks in every loop that can run long (CHECK_FOR_INTERRUPTS):
 * the statement ends with 57014 as a cancelled one does on a server, its transaction is rolled
 * back, and the database goes on. (docs/decisions/027-a-statement-deadline-for-the-embedded-database.md)
 */
export class StatementWatchdog {
  readonly #control = new Int32Array(new SharedArrayBuffer(12));
  /** When the armed statement started, in ms since `#epoch`: 64 bits, as a server runs for months. */
  readonly #started = new BigInt64Array(new SharedArrayBuffer(8));
  readonly #epoch = performance.timeOrigin + performance.now();
  /** PostgreSQL's memory, let go on close (see createWatched in pglite.ts). */
  #heap: Int32Array | undefined;
  readonly #flags: number[];
  readonly #worker: Worker;
  #generation = 0;

  /** `flags`: the addresses of QueryCancelPending and InterruptPending in `memory`, in that order. */
  constructor(memory: WebAssembly.Memory, flags: number[]) {
    this.#heap = new Int32Array(memory.buffer, 0, Math.max(...flags) / 4 + 1);
    this.#flags = flags;
    this.#worker = new Worker(new URL('./statement-watchdog-worker.mjs', import.meta.url), {
      workerData: { control: this.#control, started: this.#started, memory, flags, epoch: this.#epoch },
    });
    // It waits; it must never keep the process alive.
    this.#worker.unref();
  }

  /** Runs `fn` (one synchronous step of PostgreSQL), cancelled if it runs past `ms`. */
  run<T>(ms: number, fn: () => T): T {
    this.#generation = (this.#generation + 4) & 0x7ffffffc;
    Atomics.store(this.#control, 1, Math.max(1, Math.ceil(ms)));
    Atomics.store(this.#started, 0, BigInt(Math.floor(performance.timeOrigin + performance.now() - this.#epoch)));
    Atomics.store(this.#control, 0, this.#generation | ARMED);
    if (Atomics.load(this.#control, 2)) Atomics.notify(this.#control, 0);
    try {
      return fn();
    } finally {
      this.#disarm();
    }
  }

  /** Takes the statement back from the watchdog; when it had fired, lowers the flags it raised. */
  #disarm(): void {
    const armed = this.#generation | ARMED;
    const fired = this.#generation | FIRED;
    for (;;) {
      const seen = Atomics.compareExchange(this.#control, 0, armed, this.#generation | IDLE);
      if (seen === armed) return;
      if (Atomics.compareExchange(this.#control, 0, fired, this.#generation | IDLE) === fired) {
        // A flag left raised after the statement ended would cancel the next one.
        for (const at of this.#flags) Atomics.store(this.#heap!, at / 4, 0);
        return;
      }
      // The watchdog is raising the flags this instant: wait for it to finish.
      Atomics.wait(this.#control, 0, seen, 1);
    }
  }

  close(): Promise<number> {
    this.#heap = undefined;
    return this.#worker.terminate();
  }
}
