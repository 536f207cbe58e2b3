import type { Queryable } from '../db/database';

export type Limit = { max: number; windowSeconds: number };

/**
 * A fixed-window counter in the database, so the limit holds across every server process.
 * Returns 0 when the hit is allowed, else the seconds until the window ends.
 */
export async function hitRateLimit(db: Queryable, key: string, limit: Limit): Promise<number> {
  const { rows } = await db.query<{ count: number; retry_after: number }>(
    `insert into nodeharbor.rate_limits as r (key, window_start, count)
     values ($1, now(), 1)
     on conflict (key) do update set
       count = case when r.window_start + make_interval(secs => $2) <= now() then 1 else r.count + 1 end,
       window_start = case when r.window_start + make_interval(secs => $2) <= now() then now() else r.window_start end
     returning count,
       greatest(1, ceil(extract(epoch from (window_start + make_interval(secs => $2) - now()))))::int as retry_after`,
    [key, limit.windowSeconds],
  );
  const row = rows[0]!;
  return row.count > limit.max ? row.retry_after : 0;
}

/**
 * Reads a counter without counting: 0 while fewer than `limit.max` hits are in the current window,
 * else the seconds until it ends. For limits on failures, counted with hitRateLimit only when
 * an attempt fails and checked before the next one.
 */
export async function peekRateLimit(db: Queryable, key: string, limit: Limit): Promise<number> {
  const { rows } = await db.query<{ count: number; retry_after: number }>(
    `select count, greatest(1, ceil(extract(epoch from (window_start + make_interval(secs => $2) - now()))))::int as retry_after
       from nodeharbor.rate_limits where key = $1 and window_start + make_interval(secs => $2) > now()`,
    [key, limit.windowSeconds],
  );
  const row = rows[0];
  return row && row.count >= limit.max ? row.retry_after : 0;
}
