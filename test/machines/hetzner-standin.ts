import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for Hetzner Cloud's API (https://docs.hetzner.cloud/reference/cloud): the calls
 * the machine provider makes (servers, their power actions, actions, firewalls by name) in
 * Hetzner's JSON shapes and error envelope, and switches for its failures. Servers and actions
 * live in memory; an action runs until it has been polled `actionPolls` times.
 */
export type StandInServer = {
  id: number;
  name: string;
  /** initializing until create's action ends, then running; off after a power off. */
  status: string;
  serverType: string;
  image: string;
  location: string;
  userData: string;
  labels: Record<string, string>;
  sshKeys: (number | string)[];
  firewalls: number[];
  ipv4: string | null;
  created: Date;
};

export type StandInAction = {
  id: number;
  command: string;
  status: 'running' | 'success' | 'error';
  serverId: number;
  started: Date;
  finished: Date | null;
  error: { code: string; message: string } | null;
  /** Polls left until it ends. */
  pollsLeft: number;
  /** It ends in this error instead of success. */
  failWith: { code: string; message: string } | null;
  /** What its success does to its server. */
  effect: () => void;
};

/** A request as the stand-in received it, without its Authorization header. */
export type RecordedRequest = { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: unknown };

/** An error answered in place of the next request whose path matches (every path without one). */
export type InjectedError = { status: number; code: string; message: string; headers?: Record<string, string>; path?: RegExp };

/** What a "booted" server is to a hook: the id as the provider reports it, and what it boots with. */
export type BootedServer = { id: string; name: string; userData: string; labels: Record<string, string> };

export type HetznerStandInOptions = {
  token?: string;
  /** The poll of an action that sees it end: 1, the first. */
  actionPolls?: number;
  /** A created server has started (create's action succeeded): a later piece runs its user data. */
  onBoot?: (server: BootedServer) => void;
  onDelete?: (id: string) => void;
  /** A server's power changed. */
  onPower?: (id: string, on: boolean) => void;
};

export type HetznerStandIn = {
  url: string;
  token: string;
  servers: Map<number, StandInServer>;
  actions: Map<number, StandInAction>;
  /** The project's firewalls, id to name. */
  firewalls: Map<number, string>;
  requests: RecordedRequest[];
  actionPolls: number;
  fail: {
    /** Answered in order, one per matching request, before anything else (Hetzner rate-limits unauthenticated requests too). */
    errors: InjectedError[];
    /** Locations where a create answers 412 resource_unavailable. */
    capacityIn: Set<string>;
    /** The next action started ends in this error. */
    nextAction: { code: string; message: string } | null;
    /** Requests are received and recorded, never answered. */
    hang: boolean;
  };
  /** The next `calls` requests (matching `path`) answer 429 rate_limit_exceeded with Hetzner's RateLimit-* headers. */
  rateLimit(calls: number, opts?: { reset?: Date; limit?: number; path?: RegExp }): void;
  /** A server made elsewhere (the console, another NodeHarbor): running, its action long done. */
  addServer(s: Partial<StandInServer> & { name: string }): StandInServer;
  close(): Promise<void>;
};

const TOKEN = 'standin-hcloud-token-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU';

const LOCATIONS: Record<string, { id: number; description: string; country: string; city: string; network_zone: string }> = {
  fsn1: { id: 1, description: 'Falkenstein DC Park 1', country: 'DE', city: 'Falkenstein', network_zone: 'eu-central' },
  nbg1: { id: 2, description: 'Nuremberg DC Park 1', country: 'DE', city: 'Nuremberg', network_zone: 'eu-central' },
  hel1: { id: 3, description: 'Helsinki DC Park 1', country: 'FI', city: 'Helsinki', network_zone: 'eu-central' },
  ash: { id: 4, description: 'Ashburn, VA', country: 'US', city: 'Ashburn, VA', network_zone: 'us-east' },
  hil: { id: 5, description: 'Hillsboro, OR', country: 'US', city: 'Hillsboro, OR', network_zone: 'us-west' },
  sin: { id: 6, description: 'Singapore', country: 'SG', city: 'Singapore', network_zone: 'ap-southeast' },
};

/** Hetzner's rule for a server name: a hostname (RFC 1123) of letters, digits, periods and dashes. */
const HOSTNAME = /^[a-zA-Z0-9]([a-zA-Z0-9.-]{0,61}[a-zA-Z0-9])?$/;
const USER_DATA_LIMIT = 32 * 1024;
/** A body that did not parse, told apart from an absent one. */
const INVALID_JSON = Symbol('invalid JSON');

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

const fault = (status: number, code: string, message: string, details: unknown = null): Answer => ({ status, body: { error: { code, message, details } } });
const invalid = (field: string, message: string) =>
  fault(400, 'invalid_input', `invalid input in field '${field}'`, { fields: [{ name: field, messages: [message] }] });

export async function startHetznerStandIn(opts: HetznerStandInOptions = {}): Promise<HetznerStandIn> {
  const sockets = new Set<Socket>();
  let nextServerId = 1000;
  let nextActionId = 5000;

  const locationJson = (name: string) => ({ name, ...LOCATIONS[name]!, latitude: 0, longitude: 0 });
  const serverJson = (v: StandInServer) => ({
    id: v.id,
    name: v.name,
    status: v.status,
    created: v.created.toISOString(),
    public_net: {
      ipv4: v.ipv4 ? { id: v.id + 1, ip: v.ipv4, blocked: false, dns_ptr: `static.${v.ipv4}.clients.your-server.de` } : null,
      ipv6: { id: v.id + 2, ip: `2001:db8:${v.id.toString(16)}::/64`, blocked: false, dns_ptr: [] },
      floating_ips: [],
      firewalls: v.firewalls.map((id) => ({ id, status: 'applied' })),
    },
    private_net: [],
    server_type: { name: v.serverType, architecture: 'x86' },
    location: locationJson(v.location),
    image: { name: v.image, type: 'system', status: 'available' },
    iso: null,
    rescue_enabled: false,
    locked: false,
    backup_window: null,
    outgoing_traffic: 0,
    ingoing_traffic: 0,
    included_traffic: 21990232555520,
    protection: { delete: false, rebuild: false },
    labels: v.labels,
    volumes: [],
    load_balancers: [],
    primary_disk_size: 40,
    placement_group: null,
  });
  const actionJson = (a: StandInAction) => ({
    id: a.id,
    command: a.command,
    status: a.status,
    progress: a.status === 'running' ? 50 : 100,
    started: a.started.toISOString(),
    finished: a.finished?.toISOString() ?? null,
    resources: [{ id: a.serverId, type: 'server' }],
    error: a.error,
  });
  const pagination = (page: number, perPage: number, total: number) => {
    const last = Math.max(1, Math.ceil(total / perPage));
    return {
      page,
      per_page: perPage,
      previous_page: page > 1 ? page - 1 : null,
      next_page: page < last ? page + 1 : null,
      last_page: last,
      total_entries: total,
    };
  };

  function startAction(command: string, serverId: number, effect: () => void): StandInAction {
    const a: StandInAction = {
      id: nextActionId++,
      command,
      status: 'running',
      serverId,
      started: new Date(),
      finished: null,
      error: null,
      pollsLeft: s.actionPolls,
      failWith: s.fail.nextAction,
      effect,
    };
    s.fail.nextAction = null;
    s.actions.set(a.id, a);
    return a;
  }

  const booted = (v: StandInServer): BootedServer => ({ id: String(v.id), name: v.name, userData: v.userData, labels: { ...v.labels } });
  const setPower = (v: StandInServer, on: boolean) => {
    const status = on ? 'running' : 'off';
    if (v.status === status) return;
    v.status = status;
    opts.onPower?.(String(v.id), on);
  };

  /** `k==v` and `k=v` terms, all of which must hold; Hetzner's other operators are not needed here. */
  function matcher(selector: string): ((labels: Record<string, string>) => boolean) | Answer {
    const terms: [string, string][] = [];
    for (const term of selector.split(',').filter(Boolean)) {
      const m = /^([^=!\s]+)==?([^=!\s]*)$/.exec(term.trim());
      if (!m) return invalid('label_selector', `the stand-in supports only k==v terms, got "${term}"`);
      terms.push([m[1]!, m[2]!]);
    }
    return (labels) => terms.every(([k, v]) => labels[k] === v);
  }

  function createServerFrom(b: Record<string, unknown>): Answer {
    if (typeof b.name !== 'string' || !HOSTNAME.test(b.name)) return invalid('name', 'must be a valid hostname');
    if (typeof b.server_type !== 'string' || !b.server_type) return invalid('server_type', 'is required');
    if (typeof b.image !== 'string' || !b.image) return invalid('image', 'is required');
    const location = b.location ?? 'fsn1';
    if (typeof location !== 'string' || !LOCATIONS[location]) return invalid('location', 'location not found');
    const userData = b.user_data ?? '';
    if (typeof userData !== 'string' || Buffer.byteLength(userData) > USER_DATA_LIMIT) return invalid('user_data', 'is limited to 32 KiB');
    const labels = (b.labels ?? {}) as Record<string, unknown>;
    if (Object.values(labels).some((v) => typeof v !== 'string')) return invalid('labels', 'values must be strings');
    const firewalls = (b.firewalls ?? []) as { firewall?: unknown }[];
    if (!Array.isArray(firewalls) || firewalls.some((f) => typeof f.firewall !== 'number')) return invalid('firewalls', 'each must be {"firewall": <id>}');
    if ([...s.servers.values()].some((v) => v.name === b.name)) {
      return fault(409, 'uniqueness_error', 'server name is already used', { fields: [{ name: 'name' }] });
    }
    if (s.fail.capacityIn.has(location)) return fault(412, 'resource_unavailable', `server type ${b.server_type} is unavailable in ${location}`);
    const publicNet = (b.public_net ?? { enable_ipv4: true }) as { enable_ipv4?: unknown };
    const id = nextServerId++;
    const v: StandInServer = {
      id,
      name: b.name,
      status: 'initializing',
      serverType: b.server_type,
      image: b.image,
      location,
      userData,
      labels: labels as Record<string, string>,
      sshKeys: (b.ssh_keys ?? []) as (number | string)[],
      firewalls: firewalls.map((f) => f.firewall as number),
      // 203.0.113.0/24: TEST-NET-3, an address that is nobody's.
      ipv4: publicNet.enable_ipv4 === false ? null : `203.0.113.${id % 250}`,
      created: new Date(),
    };
    s.servers.set(id, v);
    const start = b.start_after_create !== false;
    const create = startAction('create_server', id, () => {
      v.status = start ? 'running' : 'off';
      if (start) opts.onBoot?.(booted(v));
    });
    const next = start ? [startAction('start_server', id, () => {})] : [];
    return {
      status: 201,
      body: {
        server: serverJson(v),
        action: actionJson(create),
        next_actions: next.map(actionJson),
        root_password: v.sshKeys.length ? null : 'StandInRootPassword',
      },
    };
  }

  function handle(method: string, url: URL, auth: string | undefined, body: unknown): Answer {
    const path = url.pathname.replace(/^\/v1/, '');
    const injected = s.fail.errors.findIndex((e) => !e.path || e.path.test(path));
    if (injected >= 0) {
      const [e] = s.fail.errors.splice(injected, 1);
      return { ...fault(e!.status, e!.code, e!.message), headers: e!.headers };
    }
    if (auth !== `Bearer ${s.token}`) return fault(401, 'unauthorized', 'unable to authenticate');
    if (body === INVALID_JSON) return fault(400, 'json_error', 'invalid JSON in the request body');

    let m = /^\/actions\/(\d+)$/.exec(path);
    if (m && method === 'GET') {
      const a = s.actions.get(Number(m[1]));
      if (!a) return fault(404, 'not_found', `action with ID '${m[1]}' not found`);
      if (a.status === 'running' && --a.pollsLeft <= 0) {
        a.finished = new Date();
        if (a.failWith) {
          a.status = 'error';
          a.error = a.failWith;
        } else {
          a.status = 'success';
          a.effect();
        }
      }
      return { status: 200, body: { action: actionJson(a) } };
    }
    if (path === '/firewalls' && method === 'GET') {
      const name = url.searchParams.get('name');
      const found = [...s.firewalls].filter(([, n]) => name === null || n === name);
      return {
        status: 200,
        body: {
          firewalls: found.map(([id, n]) => ({ id, name: n, labels: {}, created: new Date(0).toISOString(), rules: [], applied_to: [] })),
          meta: { pagination: pagination(1, 25, found.length) },
        },
      };
    }
    if (path === '/servers' && method === 'GET') {
      const match = matcher(url.searchParams.get('label_selector') ?? '');
      if (typeof match !== 'function') return match;
      const page = Number(url.searchParams.get('page') ?? 1);
      const perPage = Number(url.searchParams.get('per_page') ?? 25);
      if (!(page >= 1) || !(perPage >= 1 && perPage <= 50)) return invalid('per_page', 'page must be 1 or more, per_page 1 to 50');
      const all = [...s.servers.values()].filter((v) => match(v.labels)).sort((a, b) => a.id - b.id);
      return {
        status: 200,
        body: { servers: all.slice((page - 1) * perPage, page * perPage).map(serverJson), meta: { pagination: pagination(page, perPage, all.length) } },
      };
    }
    if (path === '/servers' && method === 'POST') {
      if (typeof body !== 'object' || body === null) return fault(400, 'json_error', 'the request body must be a JSON object');
      return createServerFrom(body as Record<string, unknown>);
    }
    m = /^\/servers\/(\d+)(\/actions\/(poweron|poweroff))?$/.exec(path);
    if (m) {
      const v = s.servers.get(Number(m[1]));
      if (!v) return fault(404, 'not_found', `server with ID '${m[1]}' not found`);
      if (method === 'GET' && !m[2]) return { status: 200, body: { server: serverJson(v) } };
      if (method === 'DELETE' && !m[2]) {
        // "This immediately removes the Server from your account"; its action ends later.
        s.servers.delete(v.id);
        opts.onDelete?.(String(v.id));
        return { status: 200, body: { action: actionJson(startAction('delete_server', v.id, () => {})) } };
      }
      if (method === 'POST' && m[3]) {
        const on = m[3] === 'poweron';
        const a = startAction(on ? 'start_server' : 'stop_server', v.id, () => setPower(v, on));
        return { status: 201, body: { action: actionJson(a) } };
      }
    }
    return fault(404, 'not_found', `no route for ${method} ${path}`);
  }

  const s: HetznerStandIn = {
    url: '',
    token: opts.token ?? TOKEN,
    servers: new Map(),
    actions: new Map(),
    firewalls: new Map([[38, 'nodeharbor-nodes']]),
    requests: [],
    actionPolls: opts.actionPolls ?? 2,
    fail: { errors: [], capacityIn: new Set(), nextAction: null, hang: false },
    rateLimit(calls, o = {}) {
      const limit = o.limit ?? 3600;
      const reset = o.reset ?? new Date(Date.now() + 3_600_000);
      const headers = { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(Math.floor(reset.getTime() / 1000)) };
      for (let i = 0; i < calls; i++) {
        s.fail.errors.push({ status: 429, code: 'rate_limit_exceeded', message: 'limit of requests per hour reached', headers, path: o.path });
      }
    },
    addServer(partial) {
      const id = partial.id ?? nextServerId++;
      const v: StandInServer = {
        id,
        status: 'running',
        serverType: 'cx22',
        image: 'debian-12',
        location: 'fsn1',
        userData: '',
        labels: {},
        sshKeys: [],
        firewalls: [],
        ipv4: `203.0.113.${id % 250}`,
        created: new Date(),
        ...partial,
      };
      s.servers.set(id, v);
      return v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = INVALID_JSON;
      }
      const { authorization, ...headers } = req.headers;
      s.requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body: body === INVALID_JSON ? raw : body });
      if (s.fail.hang) return; // Hetzner never answers: the caller's deadline must fire.
      let answer: Answer;
      try {
        answer = handle(req.method ?? '', new URL(req.url ?? '/', s.url), authorization, body);
      } catch (e) {
        answer = fault(500, 'server_error', e instanceof Error ? e.message : String(e));
      }
      const rateLimit = { 'RateLimit-Limit': '3600', 'RateLimit-Remaining': '3599', 'RateLimit-Reset': String(Math.floor(Date.now() / 1000) + 1) };
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...rateLimit, ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return s;
}
