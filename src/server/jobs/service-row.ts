import type { ServiceState } from '../../shared/constants';
import type { Queryable } from '../db/database';

/** A service as the lifecycle tasks see it, with its owner's address and its plan's price. */
export type ServiceRow = {
  id: string;
  user_id: string;
  name: string;
  product_id: string | null;
  renews_at: Date | null;
  /** When a suspension ends unpaid; null unless suspended. */
  terminates_at: Date | null;
  state: ServiceState;
  state_changed_at: Date;
  /** When its owner or an admin stopped its node (migration 0047); null: it runs while paid for. */
  stopped_at: Date | null;
  email: string | null;
  price: string | null;
  balance: string;
};

export async function findService(q: Queryable, serviceId: string): Promise<ServiceRow | undefined> {
  const { rows } = await q.query<ServiceRow>(
    `select s.id, s.user_id, s.name, s.product_id, s.renews_at, s.terminates_at, s.state::text as state, s.state_changed_at, s.stopped_at,
            u.email, p.price, coalesce(c.balance, 0) as balance
       from private.services s
       join auth.users u on u.id = s.user_id
       left join public.products p on p.id = s.product_id
       left join public.user_credits c on c.user_id = s.user_id
      where s.id = $1`,
    [serviceId],
  );
  return rows[0];
}

export async function recordEvent(q: Queryable, serviceId: string, event: string, detail?: Record<string, unknown>): Promise<void> {
  await q.query('select private.record_service_event($1, $2, $3::jsonb)', [serviceId, event, detail ? JSON.stringify(detail) : null]);
}

/** For the lifecycle tasks: a step that gave up is told in the service's log, so it is not silently stuck. */
export function recordGaveUp(event: string) {
  return async ({ serviceId }: { serviceId: string }, { db }: { db: Queryable }, error: string): Promise<void> => {
    await recordEvent(db, serviceId, event, { error: error.slice(0, 500) });
  };
}
