// A thread of the password pool (passwords.ts): bcrypt, run synchronously on a thread of its own.
// Plain JavaScript, so that the same file runs under tsx, under Vitest and from dist/server.
import { hashSync, verifySync } from '@node-rs/bcrypt';

/** @param {{ op: 'hash', password: string, cost: number } | { op: 'verify', password: string, hash: string }} task */
export default function run(task) {
  return task.op === 'hash' ? hashSync(task.password, task.cost) : verifySync(task.password, task.hash);
}
