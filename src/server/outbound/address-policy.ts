import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound request may reach (decision 043). An allow-list: an address passes
 * only when ipaddr.js files it under its 'unicast' range, that is outside every special range it
 * knows (private, loopback, link-local, unique-local, CGNAT, multicast, unspecified, broadcast,
 * reserved, documentation, 6to4, Teredo, NAT64…), and an IPv6 address also only within 2000::/3,
 * the block IANA hands out as global unicast. An IPv4-mapped IPv6 address is judged as the IPv4
 * address it carries. Cloud metadata addresses fall in these ranges: 169.254.169.254 (link-local),
 * fd00:ec2::254 (unique-local), 100.100.100.200 (CGNAT).
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:a.b.c.d into a.b.c.d.
    parsed = ipaddr.process(address.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return false;
  }
  if (parsed.range() !== 'unicast') return false;
  // ipaddr.js calls ::7f00:1 (the deprecated IPv4-compatible ::127.0.0.1) unicast: only the
  // global unicast block is let through.
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST);
}

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** One OUTBOUND_ALLOW entry: a host, and the one port it is allowed on (any port without one). */
type AllowEntry = { host: string; port: number | undefined };

/**
 * OUTBOUND_ALLOW's entries (`host` or `host:port`, `[v6]:port`), lower-cased; throws on a malformed
 * one, with the entry in its message.
 */
export function parseAllowList(entries: readonly string[]): AllowEntry[] {
  return entries.map((raw) => {
    const entry = raw.trim().toLowerCase();
    const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    const port = m?.[2] === undefined ? undefined : Number(m[2]);
    if (!m || (port !== undefined && (port < 1 || port > 65535))) throw new Error(`"${raw}" is not a host or host:port`);
    return { host: m[1]!, port };
  });
}

/** Whether a URL's host (as URL.hostname gives it, brackets kept) and port are on the allow-list. */
export function isAllowListed(allow: readonly AllowEntry[], hostname: string, port: number): boolean {
  const host = hostname.toLowerCase();
  return allow.some((a) => a.host === host && (a.port === undefined || a.port === port));
}
