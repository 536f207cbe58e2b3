import { parseError, type RestError } from './errors';
import { MAX_EMBED_DEPTH, MAX_EMBEDS, MAX_LOGIC_DEPTH, MAX_ORDER_TERMS, MAX_SELECT_ITEMS } from './query-limits';

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

/** One step of a JSON path: `->key`, `->>key`, `->0`; an index is an integer, a key is text. */
export type JsonStep = { arrow: '->' | '->>'; key: string; index: boolean };

/** `json` is the column's JSON path, absent when the filter names the column itself. */
export type Filter = { column: string; json?: JsonStep[] } & (
  | { negate: boolean; op: 'in'; value: string[] }
  | { negate: boolean; op: 'is'; value: IsValue }
  /** With a quantifier, `value` is a PostgreSQL array literal. */
  | { negate: boolean; op: QuantOp; quantifier?: Quantifier; value: string }
  /** `language` is the text search configuration of `fts(english).word`. */
  | { negate: boolean; op: FtsOp; language?: string; value: string }
  | { negate: boolean; op: Exclude<FilterOp, 'in' | 'is' | QuantOp | FtsOp>; value: string }
);

/** `or=(a.eq.1,and(b.gt.2,c.is.null))`: filters combined with and/or, possibly negated. */
export type LogicTree = { op: 'and' | 'or'; negate: boolean; children: Condition[] };

export type Condition = Filter | LogicTree;

export function isLogicTree(c: Condition): c is LogicTree {
  return 'children' in c;
}

export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

/** `amount.sum()::int` or `count()`: the function, and the cast of its result. */
export type Aggregation = { fn: Aggregate; cast: string | undefined };

/** `[alias:]name[!hint][!inner|!left](…)`, or `...name(…)` whose columns join its parent's. */
export type Embed = {
  kind: 'embed';
  name: string;
  alias: string | undefined;
  hint: string | undefined;
  join: 'inner' | 'left' | undefined;
  spread: boolean;
  select: SelectItem[];
};

export type SelectItem =
  | { kind: 'star' }
  | {
      kind: 'column';
      column: string;
      alias: string | undefined;
      cast: string | undefined;
      json?: JsonStep[];
      aggregate?: Aggregation;
    }
  /** `count()` without a column: the rows of its group. */
  | { kind: 'count'; alias: string | undefined; cast: string | undefined }
  | Embed;

export type OrderTerm = { column: string; json?: JsonStep[]; dir: 'asc' | 'desc' | undefined; nulls: 'first' | 'last' | undefined };

/** What the query string says of one embedded resource (`actors.order=…`, `roles.actors.limit=1`). */
export type EmbedParams = { filters: Condition[]; order: OrderTerm[]; limit: number | undefined; offset: number | undefined };

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
  /** Filters, order and ranges of embedded resources, by their path in the select (`roles.actors`). */
  embedded: Map<string, EmbedParams>;
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
    embedded: new Map(),
  };
  const params = (path: string[]): EmbedParams => {
    const key = path.join('.');
    let e = q.embedded.get(key);
    if (!e) q.embedded.set(key, (e = { filters: [], order: [], limit: undefined, offset: undefined }));
    return e;
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
      q.filters.push(parseLogicParam(key, value));
      continue;
    }
    // Most keys name a column and nothing else: no path, no JSON, no quotes.
    if (!/[.">-]/.test(key)) {
      q.filters.push(parseFilter(key, value));
      continue;
    }
    // `roles.actors.order=…`: the last part says what, the parts before it which embedded resource.
    const ranged = /^(.+)\.(order|limit|offset)$/.exec(key);
    if (ranged) {
      const e = params(parseEmbedPath(ranged[1]!, key));
      if (ranged[2] === 'order') e.order = parseOrder(value);
      else if (ranged[2] === 'limit') e.limit = parseNatural('limit', value);
      else e.offset = parseNatural('offset', value);
      continue;
    }
    const logic = /^(.+?)\.((?:not\.)?(?:or|and))$/.exec(key);
    if (logic) {
      params(parseEmbedPath(logic[1]!, key)).filters.push(parseLogicParam(logic[2]!, value));
      continue;
    }
    const { path, field } = parseTreePath(key);
    const filter = parseFilter(field.name, value);
    if (field.json) filter.json = field.json;
    if (path.length) params(path).filters.push(filter);
    else q.filters.push(filter);
  }
  return q;
}

function parseLogicParam(key: string, value: string): LogicTree {
  const negate = key.startsWith('not.');
  return parseLogic((negate ? key.slice(4) : key) as 'and' | 'or', negate, value, value, 0);
}

/** A column and its JSON path, as a filter, an order term or a select item names it. */
type FieldRef = { name: string; json: JsonStep[] | undefined };

/** `roles.actors.first_name->>x`: the embedded resources' path, then the field. */
function parseTreePath(key: string): { path: string[]; field: FieldRef } {
  const fail = () => parseError(`"failed to parse tree path (${key})"`, 'expected resource names separated by "." and a column, with an optional JSON path');
  const names: string[] = [];
  let i = 0;
  for (;;) {
    const name = readName(key, i);
    if (!name) throw fail();
    names.push(name.name);
    i = name.end;
    if (key[i] !== '.') break;
    i += 1;
  }
  const json = readJsonPath(key, i);
  if (json.end !== key.length) throw fail();
  return { path: names.slice(0, -1), field: { name: names[names.length - 1]!, json: json.steps } };
}

/** `roles.actors` before `.order`, `.limit`, `.offset`, `.or` or `.and`. */
function parseEmbedPath(raw: string, key: string): string[] {
  const { path, field } = parseTreePath(raw);
  if (field.json) throw parseError(`"failed to parse tree path (${key})"`, 'a JSON path names no embedded resource');
  return [...path, field.name];
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

/**
 * `->key->>0`, as PostgREST's pJsonPath reads it: a key is double-quoted or runs to one of
 * `( : . , > )` (a dash only before `>` ends it); an index is a signed integer, sent as an int.
 */
function readJsonPath(s: string, at: number): { steps: JsonStep[] | undefined; end: number } {
  const steps: JsonStep[] = [];
  let i = at;
  while (s.startsWith('->', i)) {
    const arrow = s.startsWith('->>', i) ? '->>' : '->';
    i += arrow.length;
    const index = /^-?\d+(?=$|->|::|[.,)])/.exec(s.slice(i));
    if (index) {
      steps.push({ arrow, key: index[0], index: true });
      i += index[0].length;
      continue;
    }
    if (s[i] === '"') {
      const quoted = readName(s, i);
      if (!quoted || quoted.name.includes('\0')) return { steps: undefined, end: i - arrow.length };
      steps.push({ arrow, key: quoted.name, index: false });
      i = quoted.end;
      continue;
    }
    let j = i;
    while (j < s.length && !'(:.,>)'.includes(s[j]!) && !(s[j] === '-' && s[j + 1] === '>')) j += 1;
    const key = s.slice(i, j).trim();
    if (key === '' || key.includes('\0')) return { steps: undefined, end: i - arrow.length };
    steps.push({ arrow, key, index: false });
    i = j;
  }
  return { steps: steps.length ? steps : undefined, end: i };
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

type Cursor = { s: string; i: number; items: number; embeds: number; fail: (at: number, why: string) => RestError };

/**
 * `select=`: `*`, `[alias:]col[->json][::type][.agg()[::type]]`, `count()`, and embedded resources
 * `[alias:]name[!hint][!inner|!left](…)` or `...name(…)`, as PostgREST's pFieldForest reads them.
 */
export function parseSelect(raw: string): SelectItem[] {
  const s = stripSpaces(raw);
  if (s === '' || s === '*') return [{ kind: 'star' }];
  const c: Cursor = {
    s,
    i: 0,
    items: 0,
    embeds: 0,
    fail: (at, why) => parseError(`"failed to parse select parameter (${raw})" (column ${at + 1})`, why),
  };
  const items = selectItems(c, 0);
  if (c.i !== s.length) throw c.fail(c.i, `unexpected ${describe(s, c.i)} expecting "," or end of input`);
  return items;
}

function selectItems(c: Cursor, depth: number): SelectItem[] {
  const items: SelectItem[] = [];
  // `actors!inner()`: an embed that only filters.
  if (depth > 0 && c.s[c.i] === ')') return items;
  for (;;) {
    if (c.s[c.i] === '*') {
      // Each star expands to every column: repeated, they would pass PostgreSQL's 1,664 entries.
      if (items.some((it) => it.kind === 'star')) throw c.fail(c.i, 'the select list may name * only once');
      items.push({ kind: 'star' });
      c.i += 1;
    } else {
      items.push(selectItem(c, depth));
    }
    c.items += 1;
    if (c.items > MAX_SELECT_ITEMS) throw c.fail(c.i, `the select list may hold at most ${MAX_SELECT_ITEMS} items`);
    if (c.s[c.i] !== ',') return items;
    c.i += 1;
  }
}

function name(c: Cursor, expecting = 'field name (* or [a..z0..9_$])'): string {
  const n = readName(c.s, c.i);
  if (!n) throw c.fail(c.i, `unexpected ${describe(c.s, c.i)} expecting ${expecting}`);
  c.i = n.end;
  return n.name;
}

function cast(c: Cursor): string | undefined {
  if (!c.s.startsWith('::', c.i)) return undefined;
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(c.s.slice(c.i + 2));
  if (!m) throw c.fail(c.i + 2, `unexpected ${describe(c.s, c.i + 2)} expecting a type name`);
  c.i += 2 + m[0].length;
  return m[0];
}

function selectItem(c: Cursor, depth: number): SelectItem {
  if (c.s.startsWith('...', c.i)) {
    c.i += 3;
    return embed(c, name(c), undefined, true, depth);
  }
  let alias: string | undefined;
  let column = name(c);
  if (c.s[c.i] === ':' && c.s[c.i + 1] !== ':') {
    c.i += 1;
    alias = column;
    column = name(c, 'field name');
  }
  if (column === 'count' && c.s.startsWith('()', c.i)) {
    c.i += 2;
    return { kind: 'count', alias, cast: cast(c) };
  }
  if (c.s[c.i] === '(' || c.s[c.i] === '!') return embed(c, column, alias, false, depth);
  const json = readJsonPath(c.s, c.i);
  c.i = json.end;
  const item: SelectItem = { kind: 'column', column, alias, cast: cast(c) };
  if (json.steps) item.json = json.steps;
  const agg = /^\.(count|sum|avg|min|max)\(\)/.exec(c.s.slice(c.i));
  if (agg) {
    c.i += agg[0].length;
    item.aggregate = { fn: agg[1] as Aggregate, cast: cast(c) };
  }
  return item;
}

function embed(c: Cursor, target: string, alias: string | undefined, spread: boolean, depth: number): Embed {
  let hint: string | undefined;
  let join: 'inner' | 'left' | undefined;
  while (c.s[c.i] === '!') {
    c.i += 1;
    const word = name(c, 'a foreign key, a column or inner/left after "!"');
    if ((word === 'inner' || word === 'left') && !join) join = word;
    else if (!hint) hint = word;
    else throw c.fail(c.i, 'an embedded resource takes one hint and one join type');
  }
  if (c.s[c.i] !== '(') throw c.fail(c.i, `unexpected ${describe(c.s, c.i)} expecting "("`);
  if (target === 'count') throw c.fail(c.i, 'count takes no select list: use count()');
  if (depth + 1 > MAX_EMBED_DEPTH) throw c.fail(c.i, `embedded resources may nest at most ${MAX_EMBED_DEPTH} levels`);
  if (++c.embeds > MAX_EMBEDS) throw c.fail(c.i, `a select may embed at most ${MAX_EMBEDS} resources`);
  c.i += 1;
  const select = selectItems(c, depth + 1);
  if (c.s[c.i] !== ')') throw c.fail(c.i, `unexpected ${describe(c.s, c.i)} expecting "," or ")"`);
  c.i += 1;
  return { kind: 'embed', name: target, alias, hint, join, spread, select };
}

function describe(s: string, at: number): string {
  return at >= s.length ? 'end of input' : JSON.stringify(s[at]);
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
    const json = readJsonPath(s, name.end);
    i = json.end;
    const term: OrderTerm = { column: name.name, dir: undefined, nulls: undefined };
    if (json.steps) term.json = json.steps;
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
    const json = name && readJsonPath(part, name.end);
    if (!name || !json || part[json.end] !== '.') throw fail(`expected col.op.value, got ${JSON.stringify(part.slice(0, 40))}`);
    const rest = part.slice(json.end + 1);
    const m = /^((?:not\.)?[a-z]+(?:\([^()]*\))?\.)(.*)$/s.exec(rest);
    const filter = parseFilter(name.name, m ? m[1]! + (m[1]!.endsWith('in.') ? m[2]! : unquote(m[2]!)) : rest);
    if (json.steps) filter.json = json.steps;
    return filter;
  });
  return { op, negate, children };
}
