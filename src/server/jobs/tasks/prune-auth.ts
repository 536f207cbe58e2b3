import { z } from 'zod';
import { defineTask } from '../task';

/**
 * A revoked refresh token is kept this long (GoTrue's cleanup keeps a day): long enough to tell a
 * stolen token used again from an unknown one and end its session; after that it only takes room.
 */
const REVOKED_TOKEN_HOURS = 24;
/** Every rate-limit window is at most this long; a row whose window is over only takes room. */
const RATE_LIMIT_ROW_HOURS = 24;

/** Deletes old revoked refresh tokens, rate-limit counters and expired new-address links, which refreshes, failed attempts and locked sign-ins add. */
export const pruneAuth = defineTask({
  name: 'prune-auth',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, { db }) {
    await db.query(`delete from auth.refresh_tokens where revoked and updated_at < now() - make_interval(hours => $1)`, [REVOKED_TOKEN_HOURS]);
    await db.query(`delete from nodeharbor.rate_limits where window_start < now() - make_interval(hours => $1)`, [RATE_LIMIT_ROW_HOURS]);
    await db.query(`delete from nodeharbor.address_links where expires_at < now()`);
  },
});
