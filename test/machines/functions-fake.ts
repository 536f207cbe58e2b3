import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/**
 * A fake of NodeHarbor's three agent functions, as docs/decisions/036 ("The agent's protocol")
 * gives them, recording every request: for testing the agent (nodes/agent/) against the protocol
 * alone. It also serves files (Gala's download stand-in), and answers /DownloadLinuxNode with a
 * redirect to the tarball, as links.gala.com does. It does not rate-limit.
 */

/** The heartbeat as the protocol bounds it; strict, so that the agent sends nothing else. */
const heartbeatSchema = z
  .object({
    state: z.enum(['starting', 'running', 'stopped', 'refused']),
    status: z.string().max(4096),
    logs: z.array(z.string().max(500)).max(50),
    error: z.string().max(500).optional(),
  })
  .strict();
export type Heartbeat = z.infer<typeof heartbeatSchema>;

export type RecordedRequest = { method: string; path: string; headers: IncomingMessage['headers']; body: string; status: number; answer: string };

export type FakeMachine = {
  serviceId: string;
  bootstrapToken: string;
  /** The key node-bootstrap hands over. */
  apiKey: string;
  /** Statuses node-bootstrap answers before it hands the key over (503: NodeHarbor is down). */
  failFirst: number[];
  /** Every bootstrap gets 401, as an expired or replayed token does. */
  refuse: boolean;
  agentToken: string | undefined;
  claims: number;
  /** Handed out with the next heartbeat's answer, then cleared. */
  commands: string[];
  /** The key node-key hands over once; set it and queue "new-key". */
  pendingKey: string | undefined;
  keyCalls: number;
  heartbeats: Heartbeat[];
  /** What node-boot-failed was told, with this machine's bootstrap token. */
  bootFailures: string[];
};

export type FunctionsFake = {
  url: string;
  publishableKey: string;
  requests: RecordedRequest[];
  addMachine(m: { apiKey: string; failFirst?: number[]; refuse?: boolean }): FakeMachine;
  close(): Promise<void>;
};

const token = () => randomBytes(32).toString('base64url');
const MAX_BODY = 64 * 1024;

export async function startFunctionsFake(opts: { heartbeatSeconds: number; files: Record<string, Buffer> }): Promise<FunctionsFake> {
  const publishableKey = `pk-test-${token()}`;
  const machines: FakeMachine[] = [];
  const requests: RecordedRequest[] = [];
  const bootstrapped = (t: string | undefined) => machines.find((m) => m.agentToken !== undefined && m.agentToken === t);

  function answer(req: IncomingMessage, body: string): { status: number; json?: unknown; file?: Buffer; location?: string } {
    const path = req.url ?? '';
    if (req.method === 'GET' && path === '/DownloadLinuxNode') {
      const name = Object.keys(opts.files)[0];
      return name ? { status: 302, location: name } : { status: 404, json: { error: 'no file' } };
    }
    if (req.method === 'GET') {
      const file = opts.files[path];
      return file ? { status: 200, file } : { status: 404, json: { error: 'Not found' } };
    }
    const fn = /^\/functions\/v1\/([a-z-]+)$/.exec(path)?.[1];
    if (req.method !== 'POST' || !fn) return { status: 404, json: { error: 'Not found' } };
    if (req.headers.apikey !== publishableKey) return { status: 401, json: { error: 'Invalid API key' } };
    if (!req.headers['content-type']?.startsWith('application/json')) return { status: 400, json: { error: 'The body must be JSON' } };
    if (Buffer.byteLength(body) > MAX_BODY) return { status: 413, json: { error: 'A heartbeat is at most 64 KiB' } };
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return { status: 400, json: { error: 'The body is not valid JSON' } };
    }
    if (fn === 'node-boot-failed') {
      const { token: t, reason } = parsed as { token?: unknown; reason?: unknown };
      const m = machines.find((x) => x.bootstrapToken === t);
      if (!m || m.claims > 0) return { status: 401, json: { error: 'This bootstrap token is not valid' } };
      if (typeof reason !== 'string' || reason === '' || reason.length > 500)
        return { status: 400, json: { error: 'reason must be one line of 1 to 500 characters' } };
      m.bootFailures.push(reason);
      return { status: 200, json: {} };
    }
    if (fn === 'node-bootstrap') {
      const t = (parsed as { token?: unknown }).token;
      const m = machines.find((x) => x.bootstrapToken === t);
      if (m && m.failFirst.length) return { status: m.failFirst.shift()!, json: { error: 'The service is unavailable' } };
      if (!m || m.refuse || m.claims > 0) return { status: 401, json: { error: 'This bootstrap token is not valid' } };
      m.claims++;
      m.agentToken = token();
      return {
        status: 200,
        json: {
          agent_token: m.agentToken,
          api_key: m.apiKey,
          workload: 'townstar',
          name: `nh-${m.serviceId.slice(0, 12)}`,
          heartbeat_seconds: opts.heartbeatSeconds,
        },
      };
    }
    const m = bootstrapped(req.headers['x-agent-token'] as string | undefined);
    if (!m) return { status: 401, json: { error: 'This agent token is not valid' } };
    if (fn === 'node-heartbeat') {
      const beat = heartbeatSchema.safeParse(parsed);
      if (!beat.success) return { status: 400, json: { error: beat.error.message } };
      m.heartbeats.push(beat.data);
      const commands = m.commands;
      m.commands = [];
      return { status: 200, json: { commands } };
    }
    if (fn === 'node-key') {
      m.keyCalls++;
      if (m.pendingKey === undefined) return { status: 409, json: { error: 'No new key is waiting' } };
      const key = m.pendingKey;
      m.pendingKey = undefined;
      m.apiKey = key;
      return { status: 200, json: { api_key: key } };
    }
    return { status: 404, json: { error: 'Not found' } };
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const a = answer(req, body);
      const text = a.json === undefined ? '' : JSON.stringify(a.json);
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        status: a.status,
        answer: a.file ? `<${a.file.length} bytes>` : text,
      });
      if (a.file) res.writeHead(a.status, { 'Content-Type': 'application/gzip', 'Content-Length': a.file.length }).end(a.file);
      else if (a.location) res.writeHead(a.status, { Location: a.location }).end();
      else res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(text);
    });
  }

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    publishableKey,
    requests,
    addMachine({ apiKey, failFirst = [], refuse = false }) {
      const m: FakeMachine = {
        serviceId: randomUUID(),
        bootstrapToken: token(),
        apiKey,
        failFirst: [...failFirst],
        refuse,
        agentToken: undefined,
        claims: 0,
        commands: [],
        pendingKey: undefined,
        keyCalls: 0,
        heartbeats: [],
        bootFailures: [],
      };
      machines.push(m);
      return m;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
