import { ProviderError, type Machine, type MachineProvider, type MachineSpec, type ProviderErrorKind } from './provider';

/**
 * Hetzner Cloud's REST API (https://docs.hetzner.cloud/reference/cloud), the only module that
 * speaks it: npm has no well-kept typed client (hcloud-js is plain JavaScript, hetzner-sdk-ts one
 * generated release with no repository), and the calls we need are few.
 */
export type HetznerOptions = {
  /** A project's API token (Read & Write). Sent as a bearer token, never in a message. */
  token: string;
  baseUrl?: string;
  fetch?: typeof globalThis.fetch;
  /** The pause between two polls of an action. */
  pollMs?: number;
  /** The longest wait for an action (create, delete, power) to end. */
  actionTimeoutMs?: number;
  /** Every request's deadline, its answer's body included. */
  requestTimeoutMs?: number;
};

type HetznerAction = {
  id: number;
  command: string;
  /** running, success or error. */
  status: string;
  error: { code: string; message: string } | null;
};

type HetznerServer = {
  id: number;
  name: string;
  status: string;
  created: string;
  // NOTE: a server's location is `location`; Hetzner removed `datacenter` (and its
  // datacenter.location) from servers on 2026-07-01 (docs.hetzner.cloud/changelog#2026-07-01-removing-datacenters).
  location: { name: string };
  public_net: { ipv4: { ip: string } | null };
  labels: Record<string, string>;
};

type Pagination = { page: number; next_page: number | null };

/** What each of Hetzner's error codes (its "Errors" section and call-specific codes) asks of the caller. */
const KIND_OF_CODE: Record<string, ProviderErrorKind> = {
  rate_limit_exceeded: 'rate_limited',
  // No server of this type can be had here now: another location may have one.
  resource_unavailable: 'capacity',
  placement_error: 'capacity',
  not_found: 'not_found',
  unauthorized: 'unauthorized',
  forbidden: 'unauthorized',
  token_readonly: 'unauthorized',
  invalid_input: 'invalid',
  json_error: 'invalid',
  uniqueness_error: 'invalid',
  // The project's own limit: the operator raises it, another location would not help.
  resource_limit_exceeded: 'invalid',
  protected: 'invalid',
  unsupported_error: 'invalid',
  deprecated_api_endpoint: 'invalid',
  service_error: 'unavailable',
  server_error: 'unavailable',
  maintenance: 'unavailable',
  timeout: 'unavailable',
  unavailable: 'unavailable',
  conflict: 'unavailable',
  locked: 'unavailable',
};

function kindOf(code: string, status: number): ProviderErrorKind {
  const known = KIND_OF_CODE[code];
  if (known) return known;
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'unavailable' : 'invalid';
}

/**
 * When one more request may be made: Hetzner gives back one request every hour / RateLimit-Limit,
 * and RateLimit-Reset (Unix seconds) is when *all* of them are back, so the earlier of the two.
 */
function retryAt(headers: Headers): Date | undefined {
  const reset = Number(headers.get('RateLimit-Reset'));
  const limit = Number(headers.get('RateLimit-Limit'));
  const times = [reset > 0 ? reset * 1000 : NaN, limit > 0 ? Date.now() + Math.ceil(3_600_000 / limit) : NaN].filter(Number.isFinite);
  return times.length ? new Date(Math.min(...times)) : undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** An id the API takes as a number; anything else is a name. */
const idOrName = (ref: string): number | string => (/^\d+$/.test(ref) ? Number(ref) : ref);

export function createHetznerProvider(opts: HetznerOptions): MachineProvider {
  const {
    token,
    baseUrl = 'https://api.hetzner.cloud/v1',
    fetch: fetchImpl = globalThis.fetch,
    pollMs = 1000,
    actionTimeoutMs = 300_000,
    requestTimeoutMs = 30_000,
  } = opts;
  // Whatever an answer echoes (a proxy's page, a message quoting the header), the token stays out.
  const redact = (s: string) => (token ? s.split(token).join('[token]') : s);

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const what = `${method} ${path}`;
    let status: number;
    let headers: Headers;
    let text: string;
    try {
      const res = await fetchImpl(`${baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      status = res.status;
      headers = res.headers;
      text = await res.text();
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new ProviderError(
        'unavailable',
        timedOut ? `Hetzner did not answer ${what} within ${requestTimeoutMs} ms` : `Hetzner could not be reached (${what})`,
        timedOut ? 'request_timeout' : 'network_error',
      );
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      // A proxy's HTML page, a cut answer: judged by its status alone.
      json = undefined;
    }
    const ok = status >= 200 && status < 300;
    if (ok && json !== undefined) return json as T;
    if (ok) throw new ProviderError('unavailable', `Hetzner answered ${what} with ${status} and a body that is not JSON`, `http_${status}`);
    const error = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
    const message = typeof error?.message === 'string' ? error.message : 'no error object in the answer';
    const kind = kindOf(code, status);
    throw new ProviderError(
      kind,
      redact(`Hetzner answered ${what} with ${status} ${code}: ${message}`),
      code,
      kind === 'rate_limited' ? retryAt(headers) : undefined,
    );
  }

  /** Hetzner's own answer that the resource is not there (not a bare 404 from something in between). */
  const missing = (e: unknown) => e instanceof ProviderError && e.kind === 'not_found' && e.code === 'not_found';

  /**
   * Polls each action until it ends, all within one actionTimeoutMs. A poll that meets a rate limit
   * or a passing failure is made again: the action goes on at Hetzner regardless, and a caller
   * that saw create fail would make a second server.
   */
  async function waitFor(actions: HetznerAction[]): Promise<void> {
    const deadline = Date.now() + actionTimeoutMs;
    for (let action of actions) {
      while (action.status !== 'success' && action.status !== 'error') {
        if (Date.now() >= deadline) {
          throw new ProviderError('unavailable', `Hetzner's ${action.command} action ${action.id} did not end within ${actionTimeoutMs} ms`, 'action_timeout');
        }
        await sleep(pollMs);
        try {
          action = (await call<{ action: HetznerAction }>('GET', `/actions/${action.id}`)).action;
        } catch (e) {
          if (!(e instanceof ProviderError) || (e.kind !== 'rate_limited' && e.kind !== 'unavailable')) throw e;
          if (e.retryAt) await sleep(Math.min(e.retryAt.getTime(), deadline) - Date.now());
        }
      }
      if (action.status === 'error') {
        const code = action.error?.code ?? 'action_failed';
        throw new ProviderError(
          kindOf(code, 500),
          redact(`Hetzner's ${action.command} action ${action.id} failed: ${action.error?.message ?? 'no reason given'} (${code})`),
          code,
        );
      }
    }
  }

  /** Create takes firewalls by id only; a name is looked up. */
  async function firewallId(ref: string): Promise<number> {
    const id = idOrName(ref);
    if (typeof id === 'number') return id;
    const r = await call<{ firewalls: { id: number }[] }>('GET', `/firewalls?${new URLSearchParams({ name: ref })}`);
    const found = r.firewalls[0];
    if (!found) throw new ProviderError('invalid', `Hetzner has no firewall named "${ref}"`, 'firewall_not_found');
    return found.id;
  }

  const toMachine = (s: HetznerServer): Machine => ({
    id: String(s.id),
    name: s.name,
    status: s.status,
    location: s.location.name,
    ipv4: s.public_net.ipv4?.ip ?? null,
    labels: s.labels,
    created: new Date(s.created),
  });

  async function get(id: string): Promise<Machine | null> {
    try {
      return toMachine((await call<{ server: HetznerServer }>('GET', `/servers/${encodeURIComponent(id)}`)).server);
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
  }

  async function power(id: string, on: boolean): Promise<void> {
    // NOTE: Hetzner documents no error for powering on (off) a server already so, and its own
    // Terraform provider powers off without looking first; neither does this: the action's end is the answer.
    const r = await call<{ action: HetznerAction }>('POST', `/servers/${encodeURIComponent(id)}/actions/${on ? 'poweron' : 'poweroff'}`);
    await waitFor([r.action]);
  }

  return {
    name: 'hetzner',

    async create(spec: MachineSpec): Promise<Machine> {
      const firewalls = [];
      for (const ref of spec.firewalls) firewalls.push({ firewall: await firewallId(ref) });
      const r = await call<{ server: HetznerServer; action: HetznerAction; next_actions: HetznerAction[] }>('POST', '/servers', {
        name: spec.name,
        server_type: spec.serverType,
        image: spec.image,
        location: spec.location,
        user_data: spec.userData,
        labels: spec.labels,
        ssh_keys: spec.sshKeys.map(idOrName),
        firewalls,
        start_after_create: true,
        public_net: { enable_ipv4: true, enable_ipv6: true },
      });
      // next_actions holds the start_server that start_after_create triggers.
      await waitFor([r.action, ...(r.next_actions ?? [])]);
      const made = await get(String(r.server.id));
      if (!made) throw new ProviderError('not_found', `Hetzner's server ${r.server.id} was gone as soon as it was made`, 'not_found');
      return made;
    },

    get,

    async list(labels) {
      const selector = Object.entries(labels)
        .map(([k, v]) => `${k}==${v}`)
        .join(',');
      const found: Machine[] = [];
      for (let page: number | null = 1; page !== null;) {
        const query = new URLSearchParams({ ...(selector ? { label_selector: selector } : {}), page: String(page), per_page: '50' });
        const r: { servers: HetznerServer[]; meta?: { pagination?: Pagination } } = await call('GET', `/servers?${query}`);
        found.push(...r.servers.map(toMachine));
        const next = r.meta?.pagination?.next_page ?? null;
        // A next page that does not move on would loop forever.
        page = next !== null && next > page ? next : null;
      }
      return found;
    },

    async delete(id) {
      let r: { action: HetznerAction };
      try {
        r = await call('DELETE', `/servers/${encodeURIComponent(id)}`);
      } catch (e) {
        if (missing(e)) return;
        throw e;
      }
      await waitFor([r.action]);
    },

    powerOn: (id) => power(id, true),
    powerOff: (id) => power(id, false),
  };
}
