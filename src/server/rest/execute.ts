import type { Context } from 'hono';
import { isDbError } from '../db/database';
import type { AppDeps } from '../deps';
import { queryWithClaims, type DbRole, type RequestContext } from '../db/with-claims';
import type { Caller } from '../http/caller';
import { buildDelete, buildInsert, buildRead, buildReadCount, buildRpc, buildUpdate, type ResultRow, type Statement } from './build-sql';
import { BODY_NOT_RECEIVED, JSON_TOO_DEEP, parseJsonBody, readBodyText } from '../http/json-body';
import { checkFilterCost } from './filter-cost';
import { functionNotFound, invalidBody, missingWhere, notSingular, RestError, tableNotFound } from './errors';
import { isReservedKey, parseQuery, splitQuery, type ParsedQuery } from './parse-query';
import { planRead } from './plan';
import { checkProfile, type ResponseShape } from './request-headers';
import { negotiate, type Explain } from './media-types';
import { appliedHeader, checkMaxAffectedRoutine, checkPreferences, insertStatus, maxAffectedGuard, parsePreferences, shouldCount } from './preferences';
import { estimateTotal, mayExplain, runPlan } from './explain';
import { inRequestTransaction, needsTransaction, type RequestEnd } from './request-tx';
import { schemaCache, type Relation, type Routine, type Snapshot } from './schema-cache';
import { clientIp } from '../http/client-ip';
import { requestIdOf } from '../http/request-context';

export type RestResult = { status: number; body: string | null; shape: ResponseShape; headers: Record<string, string> };

/** Supabase's per-role statement timeouts (supabase-wire §4.5); service_role keeps the database's. */
const TIMEOUTS: Partial<Record<DbRole, string>> = { anon: '3s', authenticated: '8s' };

/** Errors a stale schema cache can cause: undefined column/function/table, type mismatch, read-only mode. */
const STALE_CACHE_CODES = new Set(['42703', '42883', '42P01', '42804', '25006']);

/** The role, claims and request settings a request's transaction runs with. */
function requestContext(deps: AppDeps, c: Context, caller: Caller, path: string, readOnly: boolean): RequestContext {
  return {
    role: caller.role,
    claims: caller.claims,
    method: c.req.method,
    path,
    headers: c.req.header(),
    clientAddress: clientIp(c, deps.config.trustProxy),
    requestId: requestIdOf(c),
    readOnly,
    ...(TIMEOUTS[caller.role] ? { statementTimeout: TIMEOUTS[caller.role] } : {}),
    // Every role's: on the embedded database all other requests wait for this statement.
    ...(deps.db.kind === 'pglite' ? { embeddedDeadlineMs: deps.config.embeddedStatementTimeoutMs } : {}),
  };
}

/** The response's shape and, for a caller who may have it, the plan the Accept header asks for. */
async function negotiated(deps: AppDeps, c: Context, caller: Caller, path: string): Promise<ReturnType<typeof negotiate>> {
  const accept = c.req.header('accept');
  return negotiate(accept, await mayExplain(deps.db, caller.role, accept, () => requestContext(deps, c, caller, path, true)));
}

type Run = { stmt: Statement; readOnly: boolean; shape: ResponseShape; path: string; end: RequestEnd; explain: Explain | undefined };

/**
 * Runs one statement in the request's transaction; a singular request that does not get one row
 * rolls back, and so does one that asked for it (`end`). Everything else, reads always, is known in
 * full up front and goes in one round trip. With a plan, the statement's EXPLAIN runs instead.
 */
async function run(deps: AppDeps, c: Context, caller: Caller, r: Run): Promise<ResultRow> {
  const ctx = requestContext(deps, c, caller, r.path, r.readOnly);
  const singular = (row: ResultRow) => {
    if (r.shape === 'object' && Number(row.page_total) !== 1) throw notSingular(Number(row.page_total));
    return row;
  };
  const { end, explain } = r;
  try {
    if (explain) return await inRequestTransaction(deps.db, ctx, end.rollback, (tx) => runPlan(tx, r.stmt, explain));
    // A read-only transaction changes nothing, so a singular read may fail after its commit.
    if (!needsTransaction(end, r.readOnly) && (r.readOnly || r.shape !== 'object')) {
      return singular((await queryWithClaims<ResultRow>(deps.db, ctx, r.stmt)).rows[0]!);
    }
    return await inRequestTransaction(deps.db, ctx, end.rollback && !r.readOnly, async (tx) => {
      const row = singular((await tx.query<ResultRow>(r.stmt.sql, r.stmt.params)).rows[0]!);
      return end.after ? end.after(tx, row) : row;
    });
  } catch (e) {
    // The catalogue may have changed under the cache (a column retyped, a function replaced):
    // reload it in the background so that the next request is built from the new one, as PostgREST does.
    if (isDbError(e) && STALE_CACHE_CODES.has(e.code!))
      schemaCache(deps.db)
        .reload(performance.now())
        .catch(() => {});
    throw e;
  }
}

/** PostgREST's Content-Range (PR RangeQuery.hs): `first-last/total`, `*` for an empty range or unknown total. */
function contentRange(offset: number, pageTotal: number, total: number | null): string {
  const range = pageTotal > 0 && total !== 0 ? `${offset}-${offset + pageTotal - 1}` : '*';
  return `${range}/${total ?? '*'}`;
}

function readStatus(offset: number, pageTotal: number, total: number | null): number {
  if (total === null) return 200;
  if (offset > total) {
    throw new RestError(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${offset} was requested, but there are only ${total} rows.`);
  }
  return pageTotal < total ? 206 : 200;
}

async function readJson(c: Context, empty: unknown): Promise<unknown> {
  const text = await readBodyText(c);
  if (text === undefined) throw invalidBody(BODY_NOT_RECEIVED);
  if (text.trim() === '') return empty;
  const parsed = parseJsonBody(text);
  if (parsed.ok) return parsed.value;
  throw parsed.reason === 'too-deep' ? invalidBody(JSON_TOO_DEEP) : invalidBody();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Insert rows and the columns to write: `columns=` when given, else the keys every object must share. */
function insertPayload(body: unknown, q: ParsedQuery): { rows: Record<string, unknown>[]; keys: string[] } {
  const rows = Array.isArray(body) ? body : [body];
  if (!rows.every(isObject)) throw invalidBody();
  if (q.columns) return { rows, keys: q.columns };
  const keys = Object.keys(rows[0] ?? {});
  const same = (r: Record<string, unknown>) => {
    const k = Object.keys(r);
    return k.length === keys.length && k.every((x) => keys.includes(x));
  };
  if (!rows.every(same)) throw invalidBody('All object keys must match');
  return { rows, keys };
}

/** Codes a request can get because the cache predates a table, column, relationship or function it names. */
const CACHE_MISS_CODES = new Set(['42703', 'PGRST200', 'PGRST204', 'PGRST205']);

/**
 * Resolves a request against the schema cache once (PostgREST's plan step). A miss is answered at
 * once from this snapshot and starts a reload, so that what was created since is known next time.
 */
async function planned<T>(deps: AppDeps, build: (snapshot: Snapshot) => T): Promise<T> {
  const cache = schemaCache(deps.db);
  try {
    return build(await cache.current());
  } catch (e) {
    if (e instanceof RestError && CACHE_MISS_CODES.has(e.code)) cache.refresh();
    throw e;
  }
}

function relationOf(snapshot: Snapshot, name: string): Relation {
  const rel = snapshot.relations.get(name);
  if (!rel) throw tableNotFound(name);
  return rel;
}

/** GET, HEAD, POST, PATCH and DELETE on a table or view of `public`. */
export async function executeTable(deps: AppDeps, c: Context, caller: Caller, name: string): Promise<RestResult> {
  const method = c.req.method;
  const read = method === 'GET' || method === 'HEAD';
  if (!read && method !== 'POST' && method !== 'PATCH' && method !== 'DELETE') {
    throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
  }
  checkProfile(read ? c.req.header('accept-profile') : c.req.header('content-profile'));
  const path = `/${name}`;
  const { shape, explain } = await negotiated(deps, c, caller, path);
  const prefer = parsePreferences(c.req.header('prefer'), deps.config.restTxEnd);
  const q = parseQuery(splitQuery(new URL(c.req.url).search));
  checkFilterCost(q.filters, caller.role);

  const options = { aggregates: deps.config.restAggregates };
  if (read) {
    const { stmt, countStmt } = await planned(deps, (snapshot) => {
      const rel = relationOf(snapshot, name);
      const readPlan = planRead(snapshot, rel, rel.name, q, options);
      // The count's own statement is built only for count=planned or estimated.
      return { stmt: buildRead(rel, readPlan, shape, shouldCount(prefer.count)), countStmt: () => buildReadCount(rel, readPlan) };
    });
    checkPreferences(prefer);
    const end = { rollback: prefer.rollback, after: estimateTotal(prefer.count, countStmt) };
    const row = await run(deps, c, caller, { stmt, readOnly: true, shape, path, end, explain });
    if (explain) return planResult(row, shape, explain);
    const offset = q.offset ?? 0;
    const pageTotal = Number(row.page_total);
    const total = row.total === null ? null : Number(row.total);
    const headers = { 'Content-Range': contentRange(offset, pageTotal, total), ...appliedHeader(prefer, 'read') };
    return { status: readStatus(offset, pageTotal, total), body: row.body, shape, headers };
  }

  if ((method === 'PATCH' || method === 'DELETE') && q.filters.length === 0) throw missingWhere(method === 'PATCH' ? 'UPDATE' : 'DELETE');
  const representation = prefer.return === 'representation';
  const bodyShape = representation ? shape : 'none';
  const body = method === 'DELETE' ? undefined : await readJson(c, undefined);
  const stmt = await planned(deps, (snapshot) => {
    const rel = relationOf(snapshot, name);
    const plan = planRead(snapshot, rel, rel.name, q, options);
    if (method === 'POST') {
      const payload = insertPayload(body, q);
      return buildInsert(rel, q, plan, { ...payload, missingDefault: prefer.missing === 'default', resolution: prefer.resolution }, bodyShape);
    }
    if (method === 'PATCH') {
      if (!isObject(body)) throw invalidBody();
      return buildUpdate(rel, q, plan, body, bodyShape);
    }
    return buildDelete(rel, q, plan, bodyShape);
  });
  checkPreferences(prefer);
  const action = method === 'POST' ? 'insert' : method === 'PATCH' ? 'update' : 'delete';
  const end = { rollback: prefer.rollback, after: action === 'insert' ? undefined : maxAffectedGuard(prefer) };
  const row = await run(deps, c, caller, { stmt, readOnly: false, shape, path, end, explain });
  if (explain) return planResult(row, shape, explain);
  const pageTotal = Number(row.page_total);
  const total = shouldCount(prefer.count) ? pageTotal : null;
  // PostgREST reports no range for an insert or a delete, only the count when asked (PR Response.hs).
  const headers = {
    'Content-Range': action === 'update' ? contentRange(0, pageTotal, total) : `*/${total ?? '*'}`,
    ...appliedHeader(prefer, action),
  };
  const status = action === 'insert' ? insertStatus(prefer, row) : representation ? 200 : 204;
  return { status, body: representation ? row.body : null, shape, headers };
}

function pickRoutine(candidates: readonly Routine[], keys: readonly string[]): Routine | undefined {
  return candidates
    .filter((r) => r.args.every((a) => a.name !== ''))
    .filter((r) => keys.every((k) => r.args.some((a) => a.name === k)))
    .filter((r) => r.args.slice(0, Math.max(r.required, 0)).every((a) => keys.includes(a.name)))
    .sort((a, b) => a.args.length - b.args.length)[0];
}

/** GET, HEAD and POST on /rpc/<fn>: arguments by name, from the JSON body or the query string. */
export async function executeRpc(deps: AppDeps, c: Context, caller: Caller, name: string): Promise<RestResult> {
  const method = c.req.method;
  const read = method === 'GET' || method === 'HEAD';
  if (!read && method !== 'POST') throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
  checkProfile(read ? c.req.header('accept-profile') : c.req.header('content-profile'));
  const { shape, explain } = await negotiated(deps, c, caller, `/rpc/${name}`);
  const prefer = parsePreferences(c.req.header('prefer'), deps.config.restTxEnd);
  const cache = schemaCache(deps.db);
  const pairs = splitQuery(new URL(c.req.url).search);

  const overloads = await cache.routines(name);
  let q: ParsedQuery;
  let args: Record<string, unknown>;
  if (read) {
    if (!overloads.length)
      throw functionNotFound(
        name,
        [...new Set(pairs.map(([k]) => k))].filter((k) => !isReservedKey(k)),
      );
    q = parseQuery(pairs, new Set(overloads.flatMap((r) => r.args.map((a) => a.name))));
    args = Object.fromEntries(q.args);
  } else {
    const body = await readJson(c, {});
    if (!isObject(body)) throw invalidBody();
    args = body;
    if (!overloads.length) throw functionNotFound(name, Object.keys(args));
    q = parseQuery(pairs);
  }
  checkFilterCost(q.filters, caller.role);
  const keys = Object.keys(args);
  const fn = pickRoutine(overloads, keys);
  if (!fn) {
    // Perhaps an overload created since the last load takes these arguments: the next request will know.
    cache.refresh();
    throw functionNotFound(name, keys);
  }

  const stmt = await planned(deps, (snapshot) => {
    const plan = planRead(snapshot, { name: fn.name, columns: fn.columns }, fn.relation ?? fn.name, q, { aggregates: deps.config.restAggregates });
    return buildRpc(fn, args, q, plan, shape, shouldCount(prefer.count));
  });
  checkPreferences(prefer);
  checkMaxAffectedRoutine(prefer, fn);
  const end = { rollback: prefer.rollback, after: maxAffectedGuard(prefer) };
  const row = await run(deps, c, caller, { stmt, readOnly: read || fn.volatility !== 'v', shape, path: `/rpc/${name}`, end, explain });
  if (explain) return planResult(row, shape, explain);
  const offset = q.offset ?? 0;
  const { pageTotal, total } = rpcRange(fn, q, row, shouldCount(prefer.count));
  const headers = { 'Content-Range': contentRange(offset, pageTotal, total), ...appliedHeader(prefer, 'rpc') };
  if (fn.returns === 'void') return { status: 204, body: null, shape, headers };
  return { status: readStatus(offset, pageTotal, total), body: row.body, shape, headers };
}

/**
 * The rows of a function's answer and their total, as PostgREST counts them (PR Query/SqlFragment.hs
 * countF, pageCountSelectF): a function returning one value (void too) has one row, counted as one;
 * a set has its page, counted in full, or by its page when no limit or offset cuts it.
 */
function rpcRange(fn: Routine, q: ParsedQuery, row: ResultRow, counting: boolean): { pageTotal: number; total: number | null } {
  if (!fn.setof) return { pageTotal: 1, total: counting ? 1 : null };
  const pageTotal = Number(row.page_total);
  if (!counting) return { pageTotal, total: null };
  if (row.total !== null) return { pageTotal, total: Number(row.total) };
  return { pageTotal, total: q.limit === undefined && q.offset === undefined ? pageTotal : null };
}

/** A plan's answer: 200 with its own Content-Type, without range or preferences (PR Response.hs DbPlanResult). */
function planResult(row: ResultRow, shape: ResponseShape, explain: Explain): RestResult {
  return { status: 200, body: row.body, shape, headers: { 'Content-Type': explain.contentType } };
}
