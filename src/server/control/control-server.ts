import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { Command } from '../cli/command';
import { describeFailure } from '../cli/cli-error';
import type { AppDeps } from '../deps';
import { controlSocketPath, MAX_REQUEST_BYTES, MAX_SOCKET_PATH_BYTES, requestSchema, type ControlReply, type ControlRequest } from './protocol';

/** How long a connection may take to send its request line. */
const REQUEST_WAIT_MS = 10_000;

export type ControlServer = { path: string; close(): Promise<void> };

/** Why a request cannot run, in the CLI's words; undefined when it can. */
function refusal(request: ControlRequest, commands: Readonly<Record<string, Command>>): string | undefined {
  const command = Object.hasOwn(commands, request.command) ? commands[request.command] : undefined;
  if (!command) return `Unknown command "${request.command}".`;
  for (const [name, value] of Object.entries(request.values)) {
    const option = Object.hasOwn(command.options, name) ? command.options[name] : undefined;
    if (!option) return `Unknown option '--${name}' for ${request.command}.`;
    if (typeof value !== (option.type === 'boolean' ? 'boolean' : 'string'))
      return `Option '--${name}' of ${request.command} takes ${option.type === 'boolean' ? 'no value' : 'a value'}.`;
  }
  return undefined;
}

/**
 * Listens on DATA_DIR/control.sock (mode 0600, in the private DATA_DIR) and runs each request's
 * command with this server's own dependencies, exactly as `npm run cli` would with its own: so
 * the CLI works while this process holds the embedded database. Nothing listens on the network.
 * A socket file left by a killed server is replaced: this process holds the data folder's lock.
 * Resolves to undefined, after a warning, when DATA_DIR is too deep for a socket path.
 */
export async function startControlServer(deps: AppDeps, commands: Readonly<Record<string, Command>>): Promise<ControlServer | undefined> {
  const path = controlSocketPath(deps.config.dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    deps.logger.warn('no control channel: the DATA_DIR path is too long for a socket; stop the server to run CLI commands', {
      path,
      max_bytes: MAX_SOCKET_PATH_BYTES,
    });
    return undefined;
  }
  const running = new Set<Promise<void>>();
  const sockets = new Set<Socket>();

  const serve = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client gone mid-answer; the command itself runs to its end.
    socket.on('error', () => {});
    // The request line comes at once; a connection that sends none is not kept.
    socket.setTimeout(REQUEST_WAIT_MS, () => socket.destroy());
    const send = (reply: ControlReply) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
    };
    const finish = (reply: ControlReply) => {
      send(reply);
      socket.end();
    };
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const nl = received.indexOf(10);
      if (nl === -1) {
        if (received.length > MAX_REQUEST_BYTES) {
          socket.off('data', onData);
          finish({ exit: 2, error: `The request is longer than ${MAX_REQUEST_BYTES} bytes.` });
        }
        return;
      }
      socket.off('data', onData);
      socket.setTimeout(0);
      if (nl > MAX_REQUEST_BYTES) return finish({ exit: 2, error: `The request is longer than ${MAX_REQUEST_BYTES} bytes.` });
      let request: ControlRequest;
      try {
        const parsed = requestSchema.safeParse(JSON.parse(received.subarray(0, nl).toString('utf8')));
        if (!parsed.success) return finish({ exit: 2, error: 'The request is not a command with its options.' });
        request = parsed.data;
      } catch {
        return finish({ exit: 2, error: 'The request is not JSON.' });
      }
      const refused = refusal(request, commands);
      if (refused) return finish({ exit: 2, error: refused });
      const run = commands[request.command]!.run(deps, request.values, (line) => send({ print: line })).then(
        () => finish({ exit: 0 }),
        (e: unknown) => finish({ exit: 1, error: describeFailure(e) }),
      );
      running.add(run);
      void run.finally(() => running.delete(run));
    };
    socket.on('data', onData);
  };

  const server = createServer(serve);
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    path,
    /** Takes no more requests, lets the commands under way finish, and removes the socket file. */
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(path, { force: true });
      await Promise.all(running);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
