import type { Incident } from '../../shared/status-page';
import type { Queryable } from '../db/database';

/** One UTC day's figure: a percentage of seconds (nodes) or of minutes (the API). */
export type DayFigure = { day: string; availability: number };
export type ProductStatus = { code: string; name: string; today: number | null; ninety_days: number | null; days: DayFigure[] };
/** What private.status_summary (migration 0054) returns: every figure the page shows, and nothing else. */
export type StatusSummary = {
  generated_at: string;
  products: ProductStatus[];
  api: { today: number | null; ninety_days: number | null; last_ok: boolean | null; days: DayFigure[] };
  incidents: Incident[];
};

export async function readStatusSummary(db: Queryable, minNodes: number): Promise<StatusSummary> {
  const { rows } = await db.query<{ s: StatusSummary }>('select private.status_summary($1) as s', [minNodes], 'status-summary');
  return rows[0]!.s;
}
