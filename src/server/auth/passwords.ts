import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { type PasswordOwner, passwordWeakness } from '../../shared/password-strength';
import { AuthError, validationFailed } from './auth-errors';

/** bcrypt only reads 72 bytes, so longer is refused (GoTrue does the same). */
export const MAX_PASSWORD_BYTES = 72;
/** GoTrue's cost (bcrypt.DefaultCost). */
export const PASSWORD_COST = 10;

/**
 * The cost new hashes are made at: GoTrue's, except in a test process (NODE_ENV=test) that names
 * another in NODEHARBOR_TEST_PASSWORD_COST. The suite runs at bcrypt's least, 4, as GoTrue's own
 * tests do (crypto.QuickHashCost): a check then takes about a millisecond instead of 60 ms of CPU.
 * Read at each hash, so a test can put the production cost back for itself.
 */
export function passwordCost(): number {
  const quick = process.env.NODE_ENV === 'test' ? Number(process.env.NODEHARBOR_TEST_PASSWORD_COST) : NaN;
  return Number.isInteger(quick) && quick >= 4 && quick <= PASSWORD_COST ? quick : PASSWORD_COST;
}

/**
 * Throws the error GoTrue answers for a password that may not be set: too long (400) or weak (422,
 * `weak_password` with its reasons), weak meaning the shared rule (src/shared/password-strength.ts)
 * with the owner's e-mail and name among the first guesses.
 */
export function assertPasswordAcceptable(password: string, owner: PasswordOwner): void {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw validationFailed(`Password cannot be longer than ${MAX_PASSWORD_BYTES} characters`);
  }
  const weak = passwordWeakness(password, owner);
  if (weak) throw new AuthError(422, 'weak_password', weak.message, { weak_password: { reasons: weak.reasons } });
}

type Task = { op: 'hash'; password: string; cost: number } | { op: 'verify'; password: string; hash: string };

/**
 * bcrypt runs on threads of its own, one per core, at a lower priority (nice +10, decision 024):
 * the ~60 ms of CPU a check costs never holds up the event loop, and a storm of sign-ins leaves the
 * cores to the requests already waiting for them, yet takes the whole machine when nothing else
 * runs (bench case 8). Threads start on first use and end when idle.
 */
const pool = new Piscina<Task, string | boolean>({
  filename: new URL('./password-worker.mjs', import.meta.url).href,
  minThreads: 0,
  maxThreads: availableParallelism(),
  idleTimeout: 60_000,
  niceIncrement: 10,
});

const bcryptHash = async (password: string, cost: number) => (await pool.run({ op: 'hash', password, cost })) as string;
const bcryptVerify = async (password: string, hash: string) => (await pool.run({ op: 'verify', password, hash })) as boolean;

/**
 * A `$2a$` bcrypt hash at cost 10 (passwordCost), the format GoTrue (Go's x/crypto/bcrypt) writes,
 * made on the password pool.
 */
export async function hashPassword(password: string): Promise<string> {
  // The binding writes $2b$ and has no choice of label (its 2.0 has, but only for linux-x64 in our
  // registry, which breaks npm ci). $2b$ only fixed a length overflow past 255 bytes, so for our
  // 72-byte passwords the hash is the same and only the label becomes Go's $2a$.
  return (await bcryptHash(password, passwordCost())).replace(/^\$2b\$/, '$2a$');
}

// A real hash of a random string at the cost of the hashes made here, so that an unknown e-mail
// costs as much time as a wrong password.
const dummyHashes = new Map<number, Promise<string>>();
const dummyHash = (): Promise<string> => {
  const cost = passwordCost();
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = bcryptHash(randomBytes(16).toString('hex'), cost);
    dummyHashes.set(cost, hash);
    hash.catch(() => dummyHashes.delete(cost));
  }
  return hash;
};

/**
 * Checks a password against a bcrypt hash of any cost written as $2a$, $2b$ or $2y$ (PHP's label
 * for the same algorithm), on the password pool like hashPassword. A missing or malformed hash
 * still spends one comparison and answers false.
 */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash || !/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(hash)) {
    await bcryptVerify(password, await dummyHash());
    return false;
  }
  return bcryptVerify(password, hash);
}
