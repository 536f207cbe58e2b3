import { RestError } from './errors';

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
