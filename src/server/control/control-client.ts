import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { inUse, lockHolder, tryTakeLock, type FolderLock } from '../db/data-folder-lock';
import { controlSocketPath, type ControlReply, type ControlRequest } from './protocol';

export type Output = { stdout(text: string): void; stderr(text: string): void };

/**
 * Where the CLI runs a command on the embedded database in `dataDir`, decided by the data folder's
 * lock alone, so that no process can come in between a look and an act: when no process holds the
 * folder the CLI takes the lock and opens the database itself (`lock`), after removing a control
 * socket a killed server left; otherwise the holder runs the command on its control socket
 * (`exit`). A holder that does not answer there (a server still starting, or another command)
 * refuses with the message that names it.
 */
export async function runInServerOrLock(dataDir: string, request: ControlRequest, out: Output): Promise<{ exit: number } | { lock: FolderLock }> {
  // Twice: a holder that stopped between our try and our call leaves the folder free.
  for (let attempt = 0; attempt < 2; attempt++) {
    const lock = tryTakeLock(dataDir);
    if (lock) {
      rmSync(controlSocketPath(dataDir), { force: true });
      return { lock };
    }
    const exit = await runInServer(dataDir, request, out);
    if (exit !== undefined) return { exit };
  }
  throw inUse(lockHolder(dataDir));
}

/**
 * Runs the command in the server listening on `dataDir`'s control socket and resolves to its exit
 * code; undefined when none answers there.
 */
export function runInServer(dataDir: string, request: ControlRequest, out: Output): Promise<number | undefined> {
  const path = controlSocketPath(dataDir);
  return new Promise((resolve) => {
    const socket = connect(path);
    let answered = false;
    let finished = false;
    let received = Buffer.alloc(0);
    socket.on('connect', () => {
      answered = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (let nl = received.indexOf(10); nl !== -1; nl = received.indexOf(10)) {
        const reply = JSON.parse(received.subarray(0, nl).toString('utf8')) as ControlReply;
        received = received.subarray(nl + 1);
        if ('print' in reply) {
          out.stdout(`${reply.print}\n`);
        } else {
          if (reply.error) out.stderr(`${reply.error}\n`);
          finished = true;
          socket.destroy();
          return resolve(reply.exit);
        }
      }
    });
    socket.on('error', () => {
      if (!answered) resolve(undefined);
    });
    socket.on('close', () => {
      if (!answered || finished) return;
      // The server went away mid-command.
      out.stderr('The server closed the control channel before the command finished: it may or may not have run.\n');
      resolve(1);
    });
  });
}
