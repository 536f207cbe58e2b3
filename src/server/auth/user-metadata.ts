import { messages, fullNameTooLong } from '../../shared/validation';
import { validationFailed } from './auth-errors';

/**
 * The largest user_metadata, as UTF-8 JSON. It travels in every access token, which every request
 * carries in a header (Node refuses headers beyond 16 KB), so it must stay far below that.
 */
export const USER_METADATA_MAX_BYTES = 4096;

const TOO_LARGE = `User metadata may be at most ${USER_METADATA_MAX_BYTES} bytes of JSON`;

/**
 * Refuses `data` (sign-up or PUT /user) whose fields break the limits of the profile they feed:
 * full_name becomes profiles.full_name (private.handle_new_user), whose check allows 200 characters.
 */
export function checkMetadataFields(data: Record<string, unknown>): void {
  const name = data.full_name;
  if (name === undefined || name === null) return;
  if (typeof name !== 'string') throw validationFailed('full_name must be a string');
  if (fullNameTooLong(name)) throw validationFailed(messages.fullNameLong);
}

function bytes(meta: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(meta));
}

/**
 * Refuses user_metadata beyond USER_METADATA_MAX_BYTES. Metadata stored before the limit existed
 * may still shrink (`previous`), so that its owner can remove what made it too large.
 */
export function checkMetadataSize(meta: Record<string, unknown>, previous?: Record<string, unknown>): void {
  const size = bytes(meta);
  if (size > USER_METADATA_MAX_BYTES && (!previous || size >= bytes(previous))) throw validationFailed(TOO_LARGE);
}
