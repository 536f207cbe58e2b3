import { RestError } from './errors';

/** The `Prefer` values this server honours; others are ignored, as PostgREST does when lenient. */
export type Preferences = {
  return: 'minimal' | 'representation' | 'headers-only' | undefined;
  count: boolean;
  missingDefault: boolean;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | undefined;
};

/** Reads every `Prefer` header: a comma list of key=value, later values winning (PR Preferences.hs). */
export function parsePrefer(headers: readonly string[]): Preferences {
  const p: Preferences = { return: undefined, count: false, missingDefault: false, resolution: undefined };
  for (const part of headers.flatMap((h) => h.split(','))) {
    const [k = '', v = ''] = part
      .trim()
      .split('=', 2)
      .map((x) => x.trim());
    if (k === 'return' && (v === 'minimal' || v === 'representation' || v === 'headers-only')) p.return = v;
    else if (k === 'count' && (v === 'exact' || v === 'planned' || v === 'estimated')) p.count = true;
    else if (k === 'missing') p.missingDefault = v === 'default';
    else if (k === 'resolution' && (v === 'merge-duplicates' || v === 'ignore-duplicates')) p.resolution = v;
  }
  return p;
}

export type ResponseShape = 'array' | 'object';

const ARRAY_TYPES = new Set(['application/json', '*/*', 'application/*']);
const OBJECT_TYPE = 'application/vnd.pgrst.object+json';

/**
 * The `Accept` header: JSON array by default, one object for `vnd.pgrst.object+json`. The first
 * acceptable media type wins; a header naming none we produce gets 406 PGRST107.
 */
export function parseAccept(header: string | undefined): ResponseShape {
  if (!header || header.trim() === '') return 'array';
  const types = header.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  for (const t of types) {
    if (t === OBJECT_TYPE || t === 'application/vnd.pgrst.object') return 'object';
    if (ARRAY_TYPES.has(t)) return 'array';
  }
  throw new RestError(406, 'PGRST107', `None of these media types are available: ${types.join(', ')}`);
}

/** Accept-Profile (reads) or Content-Profile (writes) may only name the one exposed schema. */
export function checkProfile(profile: string | undefined): void {
  if (profile === undefined || profile === 'public') return;
  throw new RestError(406, 'PGRST106', `Invalid schema: ${profile}`, null, 'Only the following schemas are exposed: public');
}
