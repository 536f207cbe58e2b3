import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { lockHolder } from '../db/data-folder-lock';
import { controlSocketPath, type ControlReply, type ControlRequest } from './protocol';

export type Output = { stdout(text: string): void; stderr(text: string): void };

/**
 * Runs the command in the server that holds the embedded database in `dataDir`, when one answers
 * on its control socket, and resolves to its exit code. Resolves to undefined when none answers,
 * and the caller then opens the database itself. A socket file left by a killed server is removed
 * on the way, unless a live process holds the data folder (a server still starting).
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
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (answered) return;
      if (e.code === 'ECONNREFUSED' && lockHolder(dataDir) === undefined) rmSync(path, { force: true });
      resolve(undefined);
    });
    socket.on('close', () => {
      if (!answered || finished) return;
      // The server went away mid-command.
      out.stderr('The server closed the control channel before the command finished: it may or may not have run.\n');
      resolve(1);
    });
  });
}
