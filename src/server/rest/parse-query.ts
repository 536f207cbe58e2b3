import { parseError, RestError } from './errors';
import { MAX_LOGIC_DEPTH, MAX_ORDER_TERMS, MAX_SELECT_ITEMS } from './query-limits';

export const FILTER_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'is', 'in', 'isdistinct', 'cs', 'cd', 'ov'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

export type Filter =
  | { column: string; negate: boolean; op: 'in'; value: string[] }
  | { column: string; negate: boolean; op: 'is'; value: IsValue }
  | { column: string; negate: boolean; op: Exclude<FilterOp, 'in' | 'is'>; value: string };

/** `or=(a.eq.1,and(b.gt.2,c.is.null))`: filters combined with and/or, possibly negated. */
export type LogicTree = { op: 'and' | 'or'; negate: boolean; children: Condition[] };

export type Condition = Filter | LogicTree;

export function isLogicTree(c: Condition): c is LogicTree {
  return 'children' in c;
}

/** Every column a condition names, nested ones included. */
export function conditionColumns(c: Condition): string[] {
  return isLogicTree(c) ? c.children.flatMap(conditionColumns) : [c.column];
}

export type SelectItem = { kind: 'star' } | { kind: 'column'; column: string; alias: string | undefined; cast: string | undefined };

export type OrderTerm = { column: string; dir: 'asc' | 'desc' | undefined; nulls: 'first' | 'last' | undefined };

/** A request's query string, read the way PostgREST reads it (supabase-wire §4.2). */
export type ParsedQuery = {
  select: SelectItem[];
  /** Filters and logic trees, all of which must hold. */
  filters: Condition[];
  order: OrderTerm[];
  limit: number | undefined;
  offset: number | undefined;
  /** `columns=` of an insert: which payload keys to take. */
  columns: string[] | undefined;
  onConflict: string[] | undefined;
  /** Query parameters that name a function argument (GET/HEAD rpc). */
  args: Map<string, string>;
};

/**
 * Splits a raw query string into ordered key/value pairs, keeping repeated keys. `+` is a space,
 * as PostgREST's parseQueryReplacePlus does; a malformed escape is a parse error, not a crash.
 */
export function splitQuery(search: string): [string, string][] {
  const raw = search.startsWith('?') ? search.slice(1) : search;
  if (!raw) return [];
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      throw parseError('Invalid percent-encoding in the query string');
    }
  };
  return raw
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? [decode(p), ''] : [decode(p.slice(0, i)), decode(p.slice(i + 1))];
    });
}

const RESERVED = new Set(['select', 'columns', 'on_conflict', 'order', 'limit', 'offset']);
const LOGIC = new Set(['or', 'and', 'not.or', 'not.and']);
/** The gateway reads the key from here; it never reaches PostgREST as a filter. */
const GATEWAY = new Set(['apikey']);

/** Keys that are never a filter or a function argument. */
export function isReservedKey(key: string): boolean {
  return RESERVED.has(key) || LOGIC.has(key) || GATEWAY.has(key);
}

/** Reads every part of the query string; `argNames` marks keys that are function arguments (GET rpc). */
export function parseQuery(pairs: [string, string][], argNames: ReadonlySet<string> = new Set()): ParsedQuery {
  const q: ParsedQuery = {
    select: [{ kind: 'star' }],
    filters: [],
    order: [],
    limit: undefined,
    offset: undefined,
    columns: undefined,
    onConflict: undefined,
    args: new Map(),
  };
  for (const [key, value] of pairs) {
    if (GATEWAY.has(key)) continue;
    if (argNames.has(key)) {
      q.args.set(key, value);
      continue;
    }
    if (RESERVED.has(key)) {
      if (key === 'select') q.select = parseSelect(value);
      else if (key === 'order') q.order = parseOrder(value);
      else if (key === 'limit') q.limit = parseNatural('limit', value);
      else if (key === 'offset') q.offset = parseNatural('offset', value);
      else if (key === 'columns') q.columns = parseColumnList('columns', value);
      else q.onConflict = parseColumnList('on_conflict', value);
      continue;
    }
    if (LOGIC.has(key)) {
      const negate = key.startsWith('not.');
      q.filters.push(parseLogic(negate ? (key.slice(4) as 'and' | 'or') : (key as 'and' | 'or'), negate, value, value, 0));
      continue;
    }
    if (/\.(order|limit|offset|or|and)$/.test(key) || key.includes('.')) {
      const resource = key.slice(0, key.indexOf('.'));
      throw new RestError(
        400,
        'PGRST108',
        `'${resource}' is not an embedded resource in this request`,
        null,
        `Verify that '${resource}' is included in the 'select' query parameter.`,
      );
    }
    q.filters.push(parseFilter(key, value));
  }
  return q;
}

function parseNatural(name: string, value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw parseError(`"failed to parse ${name} parameter (${value})"`, `${name} must be a non-negative integer`);
  return Number(value);
}

/** A field name as PostgREST allows it: a double-quoted string, or a run of ordinary characters. */
function readName(s: string, at: number): { name: string; end: number } | undefined {
  if (s[at] === '"') {
    let out = '';
    let i = at + 1;
    while (i < s.length) {
      const ch = s[i]!;
      if (ch === '\\' && i + 1 < s.length) {
        out += s[i + 1];
        i += 2;
      } else if (ch === '"') {
        return { name: out, end: i + 1 };
      } else {
        out += ch;
        i += 1;
      }
    }
    return undefined;
  }
  let i = at;
  while (i < s.length && !',():"!*.'.includes(s[i]!) && !(s[i] === '-' && s[i + 1] === '>')) i += 1;
  return i > at ? { name: s.slice(at, i), end: i } : undefined;
}

function checkJsonPath(s: string, at: number, whole: string, what: string): void {
  if (s.startsWith('->', at)) throw parseError(`"failed to parse ${what} (${whole})"`, 'JSON paths (-> and ->>) are not supported by this server');
}

/** Removes whitespace outside double quotes, as postgrest-js does before sending. */
function stripSpaces(s: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '"' && s[i - 1] !== '\\') quoted = !quoted;
    if (quoted || !/\s/.test(ch)) out += ch;
  }
  return out;
}

/** `select=`: `*`, `col`, `alias:col`, `col::type`. Embedding and aggregates get PostgREST's own errors. */
export function parseSelect(raw: string): SelectItem[] {
  const s = stripSpaces(raw);
  const fail = (at: number, why: string) => parseError(`"failed to parse select parameter (${raw})" (column ${at + 1})`, why);
  if (s === '') return [{ kind: 'star' }];
  const items: SelectItem[] = [];
  let i = 0;
  for (;;) {
    if (s[i] === '*') {
      // Each star expands to every column: repeated, they would pass PostgreSQL's 1,664 entries.
      if (items.some((it) => it.kind === 'star')) throw fail(i, 'the select list may name * only once');
      items.push({ kind: 'star' });
      i += 1;
    } else {
      if (s.startsWith('...', i)) throw new RestError(400, 'PGRST200', 'Spread and embedded resources are not supported by this server');
      let first = readName(s, i);
      if (!first) throw fail(i, `unexpected ${describe(s, i)} expecting field name (* or [a..z0..9_$])`);
      i = first.end;
      let alias: string | undefined;
      if (s[i] === ':' && s[i + 1] !== ':') {
        alias = first.name;
        first = readName(s, i + 1);
        if (!first) throw fail(i + 1, `unexpected ${describe(s, i + 1)} expecting field name`);
        i = first.end;
      }
      checkJsonPath(s, i, raw, 'select parameter');
      if (s[i] === '(' || s[i] === '!') {
        if (!balanced(s.slice(i))) throw fail(i, 'unbalanced parentheses');
        if (['count', 'sum', 'avg', 'min', 'max'].includes(first.name) && s.startsWith('()', i)) {
          throw new RestError(400, 'PGRST123', 'Use of aggregate functions is not allowed');
        }
        throw new RestError(
          400,
          'PGRST200',
          `Could not find a relationship between the table and '${first.name}' in the schema cache`,
          `Embedded resources are not supported by this server; searched for a foreign key relationship to '${first.name}' in the schema 'public', but no matches were found.`,
        );
      }
      let cast: string | undefined;
      if (s.startsWith('::', i)) {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i + 2));
        if (!m) throw fail(i + 2, `unexpected ${describe(s, i + 2)} expecting a type name`);
        cast = m[0];
        i += 2 + m[0].length;
      }
      items.push({ kind: 'column', column: first.name, alias, cast });
    }
    if (items.length > MAX_SELECT_ITEMS) throw fail(i, `the select list may hold at most ${MAX_SELECT_ITEMS} items`);
    if (i === s.length) return items;
    if (s[i] !== ',') throw fail(i, `unexpected ${describe(s, i)} expecting "," or end of input`);
    i += 1;
  }
}

function describe(s: string, at: number): string {
  return at >= s.length ? 'end of input' : JSON.stringify(s[at]);
}

function balanced(s: string): boolean {
  let depth = 0;
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    if (quoted) continue;
    if (ch === '(') depth += 1;
    if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0 && !quoted;
}

/** `order=a.desc.nullslast,b`. */
export function parseOrder(raw: string): OrderTerm[] {
  const s = stripSpaces(raw);
  const fail = () => parseError(`"failed to parse order (${raw})"`, 'expected col[.asc|.desc][.nullsfirst|.nullslast] separated by commas');
  const terms: OrderTerm[] = [];
  let i = 0;
  while (i < s.length) {
    const name = readName(s, i);
    if (!name) throw fail();
    i = name.end;
    checkJsonPath(s, i, raw, 'order');
    const term: OrderTerm = { column: name.name, dir: undefined, nulls: undefined };
    const mods = /^((?:\.[a-z]+)*)/.exec(s.slice(i))![1]!;
    i += mods.length;
    for (const mod of mods.split('.').slice(1)) {
      if ((mod === 'asc' || mod === 'desc') && !term.dir && !term.nulls) term.dir = mod;
      else if ((mod === 'nullsfirst' || mod === 'nullslast') && !term.nulls) term.nulls = mod === 'nullsfirst' ? 'first' : 'last';
      else throw fail();
    }
    terms.push(term);
    if (terms.length > MAX_ORDER_TERMS) throw parseError(`"failed to parse order (${raw})"`, `order may hold at most ${MAX_ORDER_TERMS} terms`);
    if (i === s.length) break;
    if (s[i] !== ',') throw fail();
    i += 1;
    if (i === s.length) throw fail();
  }
  if (terms.length === 0) throw fail();
  return terms;
}

/** `columns="a","b"` or `on_conflict=a,b`. */
function parseColumnList(param: string, raw: string): string[] {
  const s = stripSpaces(raw);
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const name = readName(s, i);
    if (!name) throw parseError(`"failed to parse ${param} parameter (${raw})"`, 'expected a comma-separated list of column names');
    out.push(name.name);
    i = name.end;
    if (i < s.length && s[i++] !== ',') throw parseError(`"failed to parse ${param} parameter (${raw})"`, 'expected a comma-separated list of column names');
  }
  if (out.length === 0) throw parseError(`"failed to parse ${param} parameter (${raw})"`, 'expected at least one column name');
  return out;
}

const IS_VALUES = new Set<string>(['null', 'not_null', 'true', 'false', 'unknown']);

/** `col=[not.]op.value`; everything after the operator's dot is the value, unquoted (supabase-wire §7). */
export function parseFilter(key: string, raw: string): Filter {
  if (key === '' || key.includes('->')) {
    throw parseError(`"failed to parse filter (${key})"`, key === '' ? 'empty column name' : 'JSON paths (-> and ->>) are not supported by this server');
  }
  const fail = (why: string) => parseError(`"failed to parse filter (${raw})" (line 1, column 1)`, why);
  let rest = raw;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const opName = dot < 0 ? rest : rest.slice(0, dot);
  if (!(FILTER_OPS as readonly string[]).includes(opName)) {
    throw fail(`unknown operator ${JSON.stringify(opName)}; expected one of ${FILTER_OPS.join(', ')}`);
  }
  if (dot < 0) throw fail(`operator ${opName} needs a value after "."`);
  const op = opName as FilterOp;
  const value = rest.slice(dot + 1);
  if (op === 'is') {
    const v = value.toLowerCase();
    if (!IS_VALUES.has(v)) throw fail('is expects null, not_null, true, false or unknown');
    return { column: key, negate, op, value: v as IsValue };
  }
  if (op === 'in') return { column: key, negate, op, value: parseList(value, fail) };
  if (op === 'like' || op === 'ilike') return { column: key, negate, op, value: value.replace(/\*/g, '%') };
  return { column: key, negate, op, value };
}

/** `(a,b,"c,d")`: double quotes protect commas and parentheses; a backslash escapes the next character. */
function parseList(raw: string, fail: (why: string) => Error): string[] {
  if (!raw.startsWith('(') || !raw.endsWith(')') || raw.length < 2) throw fail('in expects a list in parentheses: (a,b,c)');
  const s = raw.slice(1, -1);
  const out: string[] = [];
  if (s === '') return out;
  let i = 0;
  for (;;) {
    let item = '';
    if (s[i] === '"') {
      i += 1;
      for (;;) {
        if (i >= s.length) throw fail('unterminated double quote in list');
        const ch = s[i]!;
        if (ch === '\\' && i + 1 < s.length) {
          item += s[i + 1];
          i += 2;
        } else if (ch === '"') {
          i += 1;
          break;
        } else {
          item += ch;
          i += 1;
        }
      }
    } else {
      while (i < s.length && s[i] !== ',') {
        if ('()"'.includes(s[i]!)) throw fail(`unexpected ${JSON.stringify(s[i])} in list; quote values that contain it`);
        item += s[i];
        i += 1;
      }
    }
    out.push(item);
    if (i === s.length) return out;
    if (s[i] !== ',') throw fail('expected "," between list values');
    i += 1;
  }
}

/** Splits at commas outside double quotes and parentheses; undefined when they do not balance. */
function splitTopLevel(s: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '\\') i += 1;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '(') depth += 1;
    else if (ch === ')' && --depth < 0) return undefined;
    else if (ch === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0 || quoted) return undefined;
  parts.push(s.slice(start));
  return parts;
}

/** A value of a logic-tree filter may be double-quoted to hold commas and parentheses. */
function unquote(v: string): string {
  if (v.length < 2 || !v.startsWith('"') || !v.endsWith('"')) return v;
  return v.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** `(cond,cond,...)` where cond is `col.[not.]op.value` or a nested `[not.]and(...)` / `[not.]or(...)`. */
function parseLogic(op: 'and' | 'or', negate: boolean, raw: string, whole: string, depth: number): LogicTree {
  const fail = (why: string) => parseError(`"failed to parse logic tree (${whole})" (line 1, column 1)`, why);
  // Bounded so that a hostile nesting costs neither the stack nor quadratic time.
  if (depth >= MAX_LOGIC_DEPTH) throw fail(`logic trees may nest at most ${MAX_LOGIC_DEPTH} levels`);
  if (!raw.startsWith('(') || !raw.endsWith(')')) throw fail('expected a list of conditions in parentheses');
  // Hand-written trees often put a space after a comma; it is not part of the next condition.
  const parts = splitTopLevel(raw.slice(1, -1))?.map((p) => p.trimStart());
  if (!parts || parts.some((p) => p === '')) throw fail('unbalanced parentheses, quotes or an empty condition');
  const children = parts.map((part): Condition => {
    const nested = /^(not\.)?(and|or)\(/.exec(part);
    if (nested) return parseLogic(nested[2] as 'and' | 'or', Boolean(nested[1]), part.slice(nested[0].length - 1), whole, depth + 1);
    const name = readName(part, 0);
    if (!name || part[name.end] !== '.') throw fail(`expected col.op.value, got ${JSON.stringify(part.slice(0, 40))}`);
    const rest = part.slice(name.end + 1);
    const m = /^((?:not\.)?[a-z]+\.)(.*)$/s.exec(rest);
    return parseFilter(name.name, m ? m[1]! + (m[1]!.endsWith('in.') ? m[2]! : unquote(m[2]!)) : rest);
  });
  return { op, negate, children };
}
