import { RestError } from './errors';

/** The body a request asks for (media-types.ts): a JSON array, one JSON object, or CSV. */
export type ResponseShape = 'array' | 'object' | 'csv';

/** Accept-Profile (reads) or Content-Profile (writes) may only name the one exposed schema. */
export function checkProfile(profile: string | undefined): void {
  if (profile === undefined || profile === 'public') return;
  throw new RestError(406, 'PGRST106', `Invalid schema: ${profile}`, null, 'Only the following schemas are exposed: public');
}
