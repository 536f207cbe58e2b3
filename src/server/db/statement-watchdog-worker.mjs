// The statement watchdog's thread (statement-watchdog.ts). While the embedded PostgreSQL runs a
// statement on the main thread, this thread waits out the statement's deadline and, if the same
// statement is still running then, raises PostgreSQL's cancel flags in the shared memory, again
// every REFIRE_MS until the main thread takes the statement back (a flag raised while PostgreSQL
// reads its next message is dropped by it). The main thread never wakes this one for a statement
// that ends in time: it checks at the deadline, so a statement costs the main thread no system
// call. Plain JavaScript, so that the same file runs under tsx, under Vitest and from dist/server.
import { workerData } from 'node:worker_threads';

/** @type {{ control: Int32Array, started: BigInt64Array, memory: WebAssembly.Memory, flags: number[], epoch: number }} */
const { control, started, memory, flags, epoch } = workerData;
const heap = new Int32Array(memory.buffer, 0, Math.max(...flags) / 4 + 1);
const now = () => performance.timeOrigin + performance.now() - epoch;

// control[0]: the statement's generation << 2 | its state; [1]: its budget in ms; [2]: 1 while parked.
const ARMED = 1;
const FIRED = 2;
const RAISING = 3;
const REFIRE_MS = 20;
// Idle, it looks for a new statement every TICK_MS, and after PARK_AFTER looks it sleeps until
// the main thread wakes it: a statement that starts after a quiet spell costs one wake-up.
const TICK_MS = 50;
const PARK_AFTER = 20;

let idle = 0;
for (;;) {
  const word = Atomics.load(control, 0);
  if ((word & 3) !== ARMED) {
    if (++idle < PARK_AFTER) {
      Atomics.wait(control, 0, word, TICK_MS);
      continue;
    }
    Atomics.store(control, 2, 1);
    Atomics.wait(control, 0, word);
    Atomics.store(control, 2, 0);
    idle = 0;
    continue;
  }
  idle = 0;
  const left = Number(Atomics.load(started, 0)) + Atomics.load(control, 1) - now();
  if (left > 0) {
    Atomics.wait(control, 0, word, left);
    continue;
  }
  // The same statement past its deadline: cancel it, until the main thread takes it back.
  const generation = word & ~3;
  let expected = word;
  while (Atomics.compareExchange(control, 0, expected, generation | RAISING) === expected) {
    for (const at of flags) Atomics.store(heap, at / 4, 1);
    Atomics.store(control, 0, generation | FIRED);
    expected = generation | FIRED;
    Atomics.wait(control, 0, expected, REFIRE_MS);
  }
}
