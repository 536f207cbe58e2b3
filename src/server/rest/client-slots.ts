import { RestError } from './errors';

/**
 * Statements one client may have running at once; more wait for a free slot. Enough for a
 * browser's parallel requests and a few people behind one address, far from the pool's size.
 */
export const SLOTS_PER_CLIENT = 8;
/** How long a request waits for one of its client's slots before it is refused: only that client waits. */
export const SLOT_WAIT_MS = 5000;

type Queue = { running: number; waiting: (() => void)[] };

/**
 * Per-client semaphores for the REST and RPC paths: 25 heavy requests from one address take
 * only SLOTS_PER_CLIENT of the pool's connections, so other clients' reads are not starved.
 */
export class ClientSlots {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly slots = SLOTS_PER_CLIENT,
    private readonly waitMs = SLOT_WAIT_MS,
  ) {}

  /** Runs `fn` in one of `client`'s slots; throws a 429 when none frees up in time. */
  async run<T>(client: string, fn: () => Promise<T>): Promise<T> {
    let q = this.queues.get(client);
    if (!q) this.queues.set(client, (q = { running: 0, waiting: [] }));
    // A waiter is handed the slot of the request that ends, so none can jump the queue.
    if (q.running >= this.slots) await this.wait(q);
    else q.running += 1;
    try {
      return await fn();
    } finally {
      const next = q.waiting.shift();
      if (next) next();
      else if (--q.running === 0) this.queues.delete(client);
    }
  }

  private wait(q: Queue): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        q.waiting.splice(q.waiting.indexOf(wake), 1);
        reject(
          new RestError(429, 'PGRST003', 'Too many requests at once from this client', `At most ${this.slots} requests of one client run at a time.`, 'Retry later.', {
            'Retry-After': '1',
          }),
        );
      }, this.waitMs);
      q.waiting.push(wake);
    });
  }
}
