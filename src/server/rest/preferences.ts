import type { ResultRow } from './build-sql';
import { RestError } from './errors';
import type { After } from './request-tx';
import type { Routine } from './schema-cache';

/** REST_TX_END, PostgREST's db-tx-end: how a request's transaction ends, and whether `Prefer: tx` may change it. */
export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';

export const TX_ENDS: readonly TxEnd[] = ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'];

export type PreferCount = 'exact' | 'planned' | 'estimated';

/** The `Prefer` values of a request, as PostgREST reads them (PR ApiRequest/Preferences.hs). */
export type Preferences = {
  resolution: 'merge-duplicates' | 'ignore-duplicates' | undefined;
  return: 'representation' | 'minimal' | 'headers-only' | undefined;
  count: PreferCount | undefined;
  /** Only where REST_TX_END allows an override: PostgREST ignores `tx` otherwise. */
  tx: 'commit' | 'rollback' | undefined;
  missing: 'default' | 'null' | undefined;
  handling: 'strict' | 'lenient' | undefined;
  maxAffected: number | undefined;
  /** Whether the transaction ends in a rollback: `tx=rollback` where allowed, or REST_TX_END's own. */
  rollback: boolean;
  /** What PostgREST calls invalid preferences: refused with handling=strict, ignored otherwise. */
  invalid: string[];
  /** `tx=rollback` where every request commits: refused whatever the handling (checkPreferences). */
  rollbackRefused: boolean;
};

const CHOICES = {
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  return: ['representation', 'minimal', 'headers-only'],
  count: ['exact', 'planned', 'estimated'],
  tx: ['commit', 'rollback'],
  missing: ['default', 'null'],
  handling: ['strict', 'lenient'],
} as const;

type Choice = keyof typeof CHOICES;

const ACCEPTED = new Set(Object.entries(CHOICES).flatMap(([k, values]) => values.map((v) => `${k}=${v}`)));

/** The first `key=value` of `parts` among the key's values: PostgREST keeps the first a request gives. */
function first<K extends Choice>(parts: readonly string[], key: K): (typeof CHOICES)[K][number] | undefined {
  for (const p of parts) {
    if (!ACCEPTED.has(p) || !p.startsWith(`${key}=`)) continue;
    return p.slice(key.length + 1) as (typeof CHOICES)[K][number];
  }
  return undefined;
}

/** The first `max-affected=N`, as Haskell's readMaybe reads an Int64: decimal, an optional minus, wrapped to 64 bits. */
function maxAffected(parts: readonly string[]): number | undefined {
  const p = parts.find((x) => x.startsWith('max-affected='));
  const digits = p?.slice('max-affected='.length).trim();
  return digits !== undefined && /^-?\d+$/.test(digits) ? Number(BigInt.asIntN(64, BigInt(digits))) : undefined;
}

/**
 * Reads the `Prefer` header, a comma list (Node joins repeated headers with commas). A part counts
 * only as one exact value: "return = minimal" is invalid, as in PostgREST. `timezone=` is valid
 * there but not honoured here, so it is invalid here: ignored, or refused with handling=strict.
 */
export function parsePreferences(header: string | undefined, txEnd: TxEnd): Preferences {
  const parts = header ? header.split(',').map((p) => p.trim()) : [];
  const allowOverride = txEnd.endsWith('-allow-override');
  const asked = first(parts, 'tx');
  const tx = allowOverride ? asked : undefined;
  return {
    resolution: first(parts, 'resolution'),
    return: first(parts, 'return'),
    count: first(parts, 'count'),
    tx,
    missing: first(parts, 'missing'),
    handling: first(parts, 'handling'),
    maxAffected: maxAffected(parts),
    rollback: tx === 'rollback' || (txEnd.startsWith('rollback') && tx !== 'commit'),
    invalid: parts.filter((p) => !ACCEPTED.has(p) && !p.startsWith('max-affected=')),
    // PostgREST would commit it silently; a client that asked for a rollback is told instead.
    rollbackRefused: txEnd === 'commit' && asked === 'rollback',
  };
}

/**
 * PGRST122 for invalid preferences with handling=strict (PR Plan.hs), and for `tx=rollback` on a
 * server that commits every request (REST_TX_END=commit), which PostgREST ignores and commits:
 * here it is refused, so nothing a client asked to be rolled back is ever committed.
 */
export function checkPreferences(p: Preferences): void {
  const refused = [...(p.handling === 'strict' ? p.invalid : []), ...(p.rollbackRefused ? ['tx=rollback'] : [])];
  if (!refused.length) return;
  const hint = p.rollbackRefused ? 'This server commits every request (REST_TX_END=commit): tx=rollback is refused rather than ignored' : null;
  throw new RestError(400, 'PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${refused.join(', ')}`, hint);
}

/** Whether the count is the query's own (exact, or estimated, which PostgREST starts from the exact count). */
export function shouldCount(count: PreferCount | undefined): boolean {
  return count === 'exact' || count === 'estimated';
}

/** max-affected applies only with handling=strict (PR MainTx.hs failExceedsMaxAffectedPref). */
function strictMaxAffected(p: Preferences): number | undefined {
  return p.handling === 'strict' ? p.maxAffected : undefined;
}

/**
 * PGRST124 when an update, delete or function call affects more rows than `max-affected`: checked
 * in the transaction on the rows the statement returned, so that refusing rolls it back.
 */
export function maxAffectedGuard(p: Preferences): After | undefined {
  const max = strictMaxAffected(p);
  if (max === undefined) return undefined;
  return (_tx, row) => {
    const affected = Number(row.page_total);
    if (affected <= max) return row;
    throw new RestError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${affected} rows`);
  };
}

/** PGRST128: with strict max-affected, a function must return a set whose rows can be counted. */
export function checkMaxAffectedRoutine(p: Preferences, fn: Routine): void {
  if (strictMaxAffected(p) === undefined || fn.setof) return;
  throw new RestError(400, 'PGRST128', 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict');
}

/** 201, or 200 for an upsert that inserted nothing, only updated (PR Response.hs isInsertIfGTZero). */
export function insertStatus(p: Preferences, row: ResultRow): 200 | 201 {
  return p.resolution === 'merge-duplicates' && !(Number(row.inserted) > 0) ? 200 : 201;
}

export type Action = 'read' | 'insert' | 'update' | 'delete' | 'rpc';

/**
 * Preference-Applied, in PostgREST's order (PR Preferences.hs prefAppliedHeader) and only where its
 * Response.hs responsePreferences keeps each: resolution on inserts, missing on inserts and updates,
 * return on writes, max-affected (strict only) on updates, deletes and calls; count, tx and
 * handling everywhere they were given.
 */
function preferenceApplied(p: Preferences, action: Action): string | undefined {
  const write = action === 'insert' || action === 'update' || action === 'delete';
  const max = action === 'update' || action === 'delete' || action === 'rpc' ? strictMaxAffected(p) : undefined;
  const applied = [
    action === 'insert' && p.resolution && `resolution=${p.resolution}`,
    (action === 'insert' || action === 'update') && p.missing && `missing=${p.missing}`,
    write && p.return && `return=${p.return}`,
    p.count && `count=${p.count}`,
    p.tx && `tx=${p.tx}`,
    p.handling && `handling=${p.handling}`,
    max !== undefined && `max-affected=${max}`,
  ].filter(Boolean);
  return applied.length ? applied.join(', ') : undefined;
}

/** Preference-Applied, when anything was. */
export function appliedHeader(p: Preferences, action: Action): Record<string, string> {
  const value = preferenceApplied(p, action);
  return value ? { 'Preference-Applied': value } : {};
}
