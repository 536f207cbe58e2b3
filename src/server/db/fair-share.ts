import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database } from './database';
import { DbConnectionError } from './db-failure';

/** How long a caller's statement waits for one of its own slots before it is refused: only that caller waits. */
export const SLOT_WAIT_MS = 5000;

/**
 * Slots per caller when DATABASE_CLIENT_SLOTS is not set. On PostgreSQL a fifth of the pool, so
 * that four busy callers still leave most of it to everyone else. PGlite runs one statement at a
 * time: two per caller keep one caller's queue short in front of the others'.
 */
export function defaultClientSlots(kind: Database['kind'], poolSize: number): number {
  return kind === 'postgres' ? Math.max(2, Math.floor(poolSize / 5)) : 2;
}

type Queue = { running: number; waiting: (() => void)[] };

/** Per-key semaphores, first come first served. */
class KeyedSlots {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly slots: number,
    private readonly waitMs: number,
  ) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let q = this.queues.get(key);
    if (!q) this.queues.set(key, (q = { running: 0, waiting: [] }));
    // A waiter is handed the slot of the statement that ends, so none can jump the queue.
    if (q.running >= this.slots) await this.wait(q);
    else q.running += 1;
    try {
      return await fn();
    } finally {
      const next = q.waiting.shift();
      if (next) next();
      else if (--q.running === 0) this.queues.delete(key);
    }
  }

  /** Statements waiting for a slot now, across every key. */
  waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.waiting.length;
    return n;
  }

  private wait(q: Queue): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        q.waiting.splice(q.waiting.indexOf(wake), 1);
        reject(new DbConnectionError('caller_busy', `At most ${this.slots} statements of one client run at a time`));
      }, this.waitMs);
      q.waiting.push(wake);
    });
  }
}

/**
 * The database, with its `forCaller` views limited to `slotsPerCaller` statements or transactions
 * at once per key; more wait up to `waitMs` and then fail with DbConnectionError('caller_busy')
 * (429). One user or one address can then hold only its share of PostgreSQL's pool, and only its
 * share of PGlite's one-at-a-time queue, however many requests it sends. The database itself (the
 * worker, start-up) passes straight through.
 */
export function shareFairly(db: Database, slotsPerCaller: number, waitMs = SLOT_WAIT_MS): Database {
  const slots = new KeyedSlots(slotsPerCaller, waitMs);
  // PGlite runs on this thread, and a slot handed from statement to statement passes in
  // microtasks: without a turn of the event loop in between, other callers' requests would not
  // even be read until one caller's queue had drained.
  const start = db.kind === 'pglite' ? <T>(fn: () => Promise<T>) => nextTurn().then(fn) : <T>(fn: () => Promise<T>) => fn();
  return {
    kind: db.kind,
    query: (sql, params, name) => db.query(sql, params, name),
    exec: (sql) => db.exec(sql),
    transaction: (fn, deadlines) => db.transaction(fn, deadlines),
    batch: (statements, deadlines) => db.batch(statements, deadlines),
    close: () => db.close(),
    stats: () => ({ ...db.stats?.(), callersWaiting: slots.waiting() }),
    /**
     * One request's view, its statements counted against `key` (a signed-in user or a client
     * address). They go through this object's methods (`this`), so that a test which replaces
     * one sees the requests' statements too. A request's statements share one slot: those it
     * starts while it holds one (a read outside its own open transaction, parallel reads) pass,
     * so a request can never wait on itself.
     */
    forCaller(key) {
      const base = this as Database;
      let holding = 0;
      const gate = <T>(fn: () => Promise<T>): Promise<T> =>
        holding > 0
          ? fn()
          : slots.run(key, async () => {
              holding += 1;
              try {
                return await start(fn);
              } finally {
                holding -= 1;
              }
            });
      return {
        kind: base.kind,
        origin: base,
        query: (sql, params, name) => gate(() => base.query(sql, params, name)),
        exec: (sql) => gate(() => base.exec(sql)),
        transaction: (fn, deadlines) => gate(() => base.transaction(fn, deadlines)),
        batch: (statements, deadlines) => gate(() => base.batch(statements, deadlines)),
        close: () => base.close(),
        stats: () => base.stats?.() ?? {},
      };
    },
  };
}
