import { lookup as systemLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowListed, isPublicAddress, parseAllowList } from './address-policy';

/** Every address a host name resolves to; a test says "evil.example is 127.0.0.1" with its own. */
export type Resolver = (hostname: string) => Promise<string[]>;

export type OutboundOptions = {
  /**
   * OUTBOUND_ALLOW: `host` or `host:port` entries let through although they resolve to a private or
   * loopback address, over plain http, and on any port (an entry without a port: on every port).
   */
  allow?: readonly string[];
  resolve?: Resolver;
  /** The whole request, from the DNS lookup to the answer's last byte (default 5 s). */
  timeoutMs?: number;
  /** Bytes of an answer's body that are read; the rest is dropped (default 64 KiB). */
  maxResponseBytes?: number;
};

/**
 * Why a request was not made or not answered: `form` (not an https URL on port 443 without
 * credentials, or too long), `refused` (a host that is or resolves to an address that is not public),
 * `unresolvable` (no address), `timeout`, `network` (the connection failed or broke).
 */
export type OutboundFailure = 'form' | 'refused' | 'unresolvable' | 'timeout' | 'network';

/** A refused or failed request. Its message names the URL's origin at most: paths carry tokens. */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export type OutboundResponse = {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text, cut at maxResponseBytes. */
  body: string;
  /** The body was longer than maxResponseBytes. */
  truncated: boolean;
};

export type OutboundRequest = {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Another cap for this request's answer (the Telegram Bot API's getUpdates). */
  maxResponseBytes?: number;
};

export type OutboundClient = {
  /** Checks a URL's form and every address its host resolves to; throws OutboundError, or gives the addresses a request would pin. */
  check(url: string): Promise<{ url: URL; addresses: string[] }>;
  /**
   * One request to exactly the address the check resolved (DNS is not asked again between the
   * check and the connection). A redirect is answered like any other status, never followed.
   */
  request(url: string, init: OutboundRequest): Promise<OutboundResponse>;
};

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_URL_LENGTH = 2048;
const MAX_HEADER_BYTES = 16 * 1024;

const systemResolver: Resolver = async (hostname) => (await systemLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** scheme://host[:port], the most of a URL an error or a log may show. */
export const originOf = (url: URL) => `${url.protocol}//${url.host}`;

/**
 * An HTTP client for addresses customers give (decision 043): https only, port 443, no
 * credentials in the URL, only public unicast addresses (address-policy.ts) checked after DNS and
 * pinned for the connection, no redirects, one deadline for the whole request and a cap on the
 * answer read. OUTBOUND_ALLOW's hosts are the one exception, for local stand-ins in tests.
 */
export function createOutboundClient(opts: OutboundOptions = {}): OutboundClient {
  const allow = parseAllowList(opts.allow ?? []);
  const resolve = opts.resolve ?? systemResolver;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  function parse(raw: string): { url: URL; allowed: boolean } {
    let url: URL;
    try {
      if (raw.length > MAX_URL_LENGTH) throw new Error('too long');
      url = new URL(raw);
    } catch {
      throw new OutboundError('form', 'not a URL');
    }
    const port = Number(url.port || (url.protocol === 'http:' ? 80 : 443));
    const allowed = isAllowListed(allow, url.hostname, port);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) throw new OutboundError('form', `${url.protocol} is not https`);
    if (url.username || url.password) throw new OutboundError('form', 'a URL with credentials');
    if (url.port && !allowed) throw new OutboundError('form', `port ${url.port} of ${url.hostname} is not 443`);
    return { url, allowed };
  }

  async function check(raw: string, signal: AbortSignal): Promise<{ url: URL; addresses: string[] }> {
    const { url, allowed } = parse(raw);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = await untilAborted(resolve(host), signal);
      } catch (e) {
        if (e instanceof OutboundError) throw e;
        throw new OutboundError('unresolvable', `${url.hostname} could not be resolved`);
      }
    }
    if (addresses.length === 0) throw new OutboundError('unresolvable', `${url.hostname} has no address`);
    // Every address, not only the one used: a name that also resolves privately is refused.
    if (!allowed && !addresses.every(isPublicAddress)) throw new OutboundError('refused', `${originOf(url)} is not a public address`);
    return { url, addresses };
  }

  async function request(raw: string, init: OutboundRequest): Promise<OutboundResponse> {
    const signal = AbortSignal.timeout(timeoutMs);
    const { url, addresses } = await check(raw, signal);
    const cap = init.maxResponseBytes ?? maxResponseBytes;
    // The connection goes to the checked addresses whatever DNS says now (no rebinding), while TLS
    // still checks the certificate against the host name. All of them, each checked: Node then
    // tries IPv6 and IPv4 in turn (autoSelectFamily), as it would have.
    const checked = addresses.map((address) => ({ address, family: isIP(address) }));
    const pinned: LookupFunction = (_hostname, options, callback) => {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      const usable = checked.filter((a) => !family || a.family === family);
      if (usable.length === 0) callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0);
      else if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    };
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<OutboundResponse>((done, fail) => {
      const failed = (e: unknown) => {
        if (signal.aborted) fail(new OutboundError('timeout', `${originOf(url)} did not answer within ${timeoutMs} ms`));
        else fail(new OutboundError('network', `${originOf(url)} could not be reached (${(e as NodeJS.ErrnoException).code ?? 'connection failed'})`));
      };
      const req = send({
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers: { 'user-agent': 'NodeHarbor-Notifications/1', ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        // A fresh connection each time: no pooled socket outlives the address it was checked for.
        agent: false,
        lookup: pinned,
        signal,
        maxHeaderSize: MAX_HEADER_BYTES,
      });
      req.on('error', failed);
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), truncated });
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = cap - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size = cap;
            truncated = true;
            // The rest is not read: the connection is closed under it.
            req.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', finish);
        res.on('error', (e) => {
          if (!truncated) failed(e);
        });
        res.on('aborted', () => {
          if (!truncated) failed(new Error('aborted'));
        });
      });
      req.end(body);
    });
  }

  return { check: (url) => check(url, AbortSignal.timeout(timeoutMs)), request };
}

/** `p`, or a timeout OutboundError once `signal` aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new OutboundError('timeout', 'the host name was not resolved in time'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
