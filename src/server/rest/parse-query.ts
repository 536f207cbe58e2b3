import { parseError, RestError } from './errors';
import { MAX_LOGIC_DEPTH, MAX_ORDER_TERMS, MAX_SELECT_ITEMS } from './query-limits';

/** PostgREST's operators, each group in the order its grammar tries them (QueryParams.hs: simpleOperator, quantOperator, pFts). */
const SIMPLE_OPS = ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'] as const;
const QUANT_OPS = ['eq', 'gte', 'gt', 'lte', 'lt', 'like', 'ilike', 'match', 'imatch'] as const;
const FTS_OPS = ['fts', 'plfts', 'phfts', 'wfts'] as const;
export const FILTER_OPS = ['in', 'is', 'isdistinct', ...FTS_OPS, ...SIMPLE_OPS, ...QUANT_OPS] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** The operators that take `(any)` or `(all)`: `col=like(any).{a*,b*}`. */
export type QuantOp = (typeof QUANT_OPS)[number];
export type FtsOp = (typeof FTS_OPS)[number];
export type Quantifier = 'any' | 'all';

export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

export type Filter =
  | { column: string; negate: boolean; op: 'in'; value: string[] }
  | { column: string; negate: boolean; op: 'is'; value: IsValue }
  /** With a quantifier, `value` is a PostgreSQL array literal. */
  | { column: string; negate: boolean; op: QuantOp; quantifier?: Quantifier; value: string }
  /** `language` is the text search configuration of `fts(english).word`. */
  | { column: string; negate: boolean; op: FtsOp; language?: string; value: string }
  | { column: string; negate: boolean; op: Exclude<FilterOp, 'in' | 'is' | QuantOp | FtsOp>; value: string };

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
  const s = [...raw];
  const notMiss = literal(s, 0, 'not') ?? delimiter(s, 3);
  const negate = notMiss === undefined;
  const read = readOperator(s, negate ? 4 : 0);
  if (isMiss(read)) throw operatorError(raw, read, notMiss);
  const { op } = read;
  const value = s.slice(read.valueAt).join('');
  if (op === 'is') {
    const v = value.toLowerCase();
    if (!IS_VALUES.has(v)) throw fail('is expects null, not_null, true, false or unknown');
    return { column: key, negate, op, value: v as IsValue };
  }
  if (op === 'in') return { column: key, negate, op, value: parseList(value, fail) };
  if (isFtsOp(op)) return { column: key, negate, op, value, ...(read.language !== undefined && { language: read.language }) };
  if (isQuantOp(op)) {
    // PostgREST turns every star of a like pattern, or of a list of them, into %.
    const v = op === 'like' || op === 'ilike' ? value.replace(/\*/g, '%') : value;
    return { column: key, negate, op, value: v, ...(read.quantifier && { quantifier: read.quantifier }) };
  }
  return { column: key, negate, op, value };
}

function isFtsOp(op: FilterOp): op is FtsOp {
  return (FTS_OPS as readonly string[]).includes(op);
}

function isQuantOp(op: FilterOp): op is QuantOp {
  return (QUANT_OPS as readonly string[]).includes(op);
}

/*
 * PostgREST reads the operator with Parsec (QueryParams.hs, pOpExpr), whose refusal names the
 * column where the furthest alternative failed and the character found there. The functions below
 * follow that grammar over code points, as Parsec counts columns, so that a refusal reads the same.
 */

/** An operator read from the start of a filter value; the value starts at `valueAt`. */
type ReadOperator = { op: FilterOp; quantifier?: Quantifier; language?: string; valueAt: number };

/** Where an alternative of the grammar failed, and the character it found there (undefined: the end). */
type Miss = { at: number; found: string | undefined };

function isMiss<T extends object>(r: T | Miss): r is Miss {
  return 'at' in r;
}

/** Parsec's `string lit`: a mismatch is reported where `lit` starts, with the first character that differs. */
function literal(s: readonly string[], at: number, lit: string): Miss | undefined {
  for (let k = 0; k < lit.length; k++) if (s[at + k] !== lit[k]) return { at, found: s[at + k] };
  return undefined;
}

/** The `.` after an operator (or after `not`). */
function delimiter(s: readonly string[], at: number): Miss | undefined {
  return s[at] === '.' ? undefined : { at, found: s[at] };
}

/** `in`, `is` or `isdistinct` and its `.`. */
function keywordOperator(s: readonly string[], at: number, op: 'in' | 'is' | 'isdistinct'): ReadOperator | Miss {
  const end = at + op.length;
  return literal(s, at, op) ?? delimiter(s, end) ?? { op, valueAt: end + 1 };
}

/** The first of `names` found at `at`, each tried on its own; when none is, the first one's mismatch. */
function oneOf<T extends FilterOp>(s: readonly string[], at: number, names: readonly T[]): { op: T; end: number } | Miss {
  let first: Miss | undefined;
  for (const op of names) {
    const miss = literal(s, at, op);
    if (!miss) return { op, end: at + op.length };
    first ??= miss;
  }
  return first!;
}

/** A letter, an ASCII digit, `_`, a space or `$`: PostgREST's pIdentifierChar, which reads the language of fts. */
const IDENTIFIER_CHAR = /^[\p{L}0-9_ $]$/u;

/** `fts`, `plfts`, `phfts` or `wfts`, with an optional `(language)`. */
function ftsOperator(s: readonly string[], at: number): ReadOperator | Miss {
  const name = oneOf(s, at, FTS_OPS);
  if (isMiss(name)) return name;
  const { op, end } = name;
  if (s[end] !== '(') return delimiter(s, end) ?? { op, valueAt: end + 1 };
  let close = end + 1;
  while (close < s.length && IDENTIFIER_CHAR.test(s[close]!)) close += 1;
  if (close === end + 1 || s[close] !== ')') return { at: close, found: s[close] };
  const language = s
    .slice(end + 1, close)
    .join('')
    .replace(/^ +| +$/g, '');
  return delimiter(s, close + 1) ?? { op, language, valueAt: close + 2 };
}

/** `neq`, `cs`, `cd`, `ov` and the range operators, which take no modifier. */
function simpleOperator(s: readonly string[], at: number): ReadOperator | Miss {
  const name = oneOf(s, at, SIMPLE_OPS);
  return isMiss(name) ? name : (delimiter(s, name.end) ?? { op: name.op, valueAt: name.end + 1 });
}

/** `eq`, `gt`, `like`, ... with an optional `(any)` or `(all)`. */
function quantOperator(s: readonly string[], at: number): ReadOperator | Miss {
  const name = oneOf(s, at, QUANT_OPS);
  if (isMiss(name)) return name;
  const { op, end } = name;
  if (s[end] !== '(') return delimiter(s, end) ?? { op, valueAt: end + 1 };
  // Parsec tries `any`, then `all`; when both fail, the mismatch reported is `all`'s.
  const allMiss = literal(s, end + 1, 'all');
  const quantifier: Quantifier | undefined = !literal(s, end + 1, 'any') ? 'any' : !allMiss ? 'all' : undefined;
  if (!quantifier) return allMiss!;
  if (s[end + 4] !== ')') return { at: end + 4, found: s[end + 4] };
  return delimiter(s, end + 5) ?? { op, quantifier, valueAt: end + 6 };
}

/** PostgREST's pOperation: the first alternative that reads, else the furthest failure (the first of equals). */
function readOperator(s: readonly string[], at: number): ReadOperator | Miss {
  const attempts = [
    keywordOperator(s, at, 'in'),
    keywordOperator(s, at, 'is'),
    keywordOperator(s, at, 'isdistinct'),
    ftsOperator(s, at),
    simpleOperator(s, at),
    quantOperator(s, at),
  ];
  const misses: Miss[] = [];
  for (const a of attempts) {
    if (!isMiss(a)) return a;
    misses.push(a);
  }
  return misses.reduce((best, m) => (m.at > best.at ? m : best));
}

/**
 * Parsec's message for the operator's failure, merged with that of the `not` prefix (`not`
 * mismatched, or not followed by `.`) when that failed as far or further.
 */
function operatorError(raw: string, op: Miss, not: Miss | undefined): RestError {
  const label = 'operator (eq, gt, ...)';
  let miss = op;
  let expecting = label;
  if (not && not.at >= op.at) {
    miss = not;
    const notExpecting = not.at === 0 ? '"not"' : 'delimiter (.)';
    expecting = not.at === op.at ? `${notExpecting} or ${label}` : notExpecting;
  }
  const found = miss.found === undefined ? 'end of input' : haskellShow(miss.found);
  return parseError(`"failed to parse filter (${raw})" (line 1, column ${miss.at + 1})`, `unexpected ${found} expecting ${expecting}`);
}

const CONTROL_NAMES = 'NUL SOH STX ETX EOT ENQ ACK a b t n v f r SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US'.split(' ');

/** A character as Haskell's `show` writes it in a string, which is how Parsec names what it found. */
function haskellShow(ch: string): string {
  const code = ch.codePointAt(0)!;
  let body = ch;
  if (ch === '"' || ch === '\\') body = `\\${ch}`;
  else if (code < 32) body = `\\${CONTROL_NAMES[code]}`;
  else if (code === 127) body = '\\DEL';
  else if (code > 127) body = `\\${code}`;
  return `"${body}"`;
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

/** Splits at commas outside double quotes, parentheses and array values; undefined when they do not balance. */
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
    else if (ch === '{' && s[i - 1] === '.') {
      // A value that is an array literal, `cs.{a,b}` or `like(any).{a*,b*}`, keeps its commas (PostgREST's pPgArray).
      let close = i + 1;
      while (close < s.length && s[close] !== '{' && s[close] !== '}') close += 1;
      if (s[close] === '}') i = close;
    } else if (ch === '(') depth += 1;
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
    const m = /^((?:not\.)?[a-z]+(?:\([^()]*\))?\.)(.*)$/s.exec(rest);
    return parseFilter(name.name, m ? m[1]! + (m[1]!.endsWith('in.') ? m[2]! : unquote(m[2]!)) : rest);
  });
  return { op, negate, children };
}
