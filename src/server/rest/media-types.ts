import { RestError } from './errors';
import type { ResponseShape } from './request-headers';

export type PlanFormat = 'json' | 'text';

/** EXPLAIN's options a plan may ask for, in the order PostgREST writes them (PR MediaType.hs). */
export const PLAN_OPTIONS = ['analyze', 'verbose', 'settings', 'buffers', 'wal'] as const;
export type PlanOption = (typeof PLAN_OPTIONS)[number];

/**
 * A media type as PostgREST decodes it (PR MediaType.hs decodeMediaType): one we produce (`shape`),
 * the execution plan of another, or one we do not produce, kept as PostgREST names it.
 */
type MediaType =
  | { kind: 'produced'; shape: ResponseShape; mime: string }
  | { kind: 'plan'; format: PlanFormat; for: MediaType; options: PlanOption[] }
  | { kind: 'other'; mime: string };

/** What a request's `Accept` resolves to: the body's shape, and the EXPLAIN when a plan is asked for. */
export type Negotiated = { shape: ResponseShape; explain?: Explain };

/** The statement's EXPLAIN as a plan media type asks for it, and that type as the answer's Content-Type. */
export type Explain = { format: PlanFormat; options: PlanOption[]; contentType: string };

const CHARSET = '; charset=utf-8';

/** The Content-Type of a body of `shape` (PR MediaType.hs toContentType). */
export function contentType(shape: ResponseShape): string {
  return { array: 'application/json', object: 'application/vnd.pgrst.object+json', csv: 'text/csv' }[shape] + CHARSET;
}

/**
 * The types of an `Accept` header, best first, as PostgREST takes them from WAI's parseHttpAccept:
 * spaces dropped, each `;q=` and what follows it cut off, then ordered by quality and, for equal
 * quality, by parameters minus wildcards (so `*\/*` comes after a named type); the order is kept otherwise.
 */
function acceptList(header: string): string[] {
  if (header === '') return [];
  const entries = header.split(',').map((part) => {
    const s = part.replace(/ /g, '');
    const at = s.indexOf(';q=');
    const type = at < 0 ? s : s.slice(0, at);
    const q = at < 0 ? null : /^-?\d+(\.\d+)?(e[-+]?\d+)?/i.exec(s.slice(at + 3));
    const count = (c: string) => type.split(c).length - 1;
    return { type, q: q ? Number(q[0]) : 1, specificity: count(';') - count('*') };
  });
  return entries.sort((a, b) => b.q - a.q || b.specificity - a.specificity).map((e) => e.type);
}

const WORD = /^[\p{L}\p{N}.*]+/u;
const SUBTYPE = /^[\p{L}\p{N}.*+-]+/u;
const PARAM = /^;([\p{L}\p{N}-]+)=(?:"([^"]*)"|([\p{L}\p{N}|-]+))/u;

/** PostgREST's tokenizeMediaType: type, subtype and `;key=value` parameters, as far as they parse. */
function tokenize(text: string): { type: string; subtype: string; params: Map<string, string> } {
  const type = WORD.exec(text)?.[0];
  const subtype = type !== undefined && text[type.length] === '/' ? SUBTYPE.exec(text.slice(type.length + 1))?.[0] : undefined;
  if (type === undefined || subtype === undefined) return { type: text, subtype: '', params: new Map() };
  const params = new Map<string, string>();
  let rest = text.slice(type.length + 1 + subtype.length);
  for (let m = PARAM.exec(rest); m; m = PARAM.exec(rest)) {
    params.set(m[1]!.toLowerCase(), m[2] ?? m[3]!);
    rest = rest.slice(m[0].length);
  }
  return { type, subtype, params };
}

const NOT_PRODUCED: Record<string, string> = {
  'application/geo+json': 'application/geo+json',
  'text/plain': 'text/plain',
  'text/xml': 'text/xml',
  'application/openapi+json': 'application/openapi+json',
  'application/x-www-form-urlencoded': 'application/x-www-form-urlencoded',
  'application/octet-stream': 'application/octet-stream',
};

function decode(text: string): MediaType {
  const { type, subtype, params } = tokenize(text);
  const name = `${type.toLowerCase()}/${subtype.toLowerCase()}`;
  const stripped = params.get('nulls') === 'stripped';
  const json: MediaType = { kind: 'produced', shape: 'array', mime: 'application/json' };
  switch (name) {
    case 'application/json':
    case '*/*':
      return name === '*/*' ? { ...json, mime: '*/*' } : json;
    case 'text/csv':
      return { kind: 'produced', shape: 'csv', mime: 'text/csv' };
    case 'application/vnd.pgrst.object+json':
    case 'application/vnd.pgrst.object':
      // Nulls stripped is a body this server does not make.
      return stripped
        ? { kind: 'other', mime: 'application/vnd.pgrst.object+json;nulls=stripped' }
        : { kind: 'produced', shape: 'object', mime: 'application/vnd.pgrst.object+json' };
    case 'application/vnd.pgrst.array+json':
    case 'application/vnd.pgrst.array':
      return stripped ? { kind: 'other', mime: 'application/vnd.pgrst.array+json;nulls=stripped' } : json;
    case 'application/vnd.pgrst.plan':
    case 'application/vnd.pgrst.plan+text':
    case 'application/vnd.pgrst.plan+json': {
      const options = (params.get('options') ?? '').split('|');
      return {
        kind: 'plan',
        format: name.endsWith('+json') ? 'json' : 'text',
        for: decode(params.get('for') ?? 'application/json'),
        options: PLAN_OPTIONS.filter((o) => options.includes(o)),
      };
    }
    default:
      return { kind: 'other', mime: NOT_PRODUCED[name] ?? text };
  }
}

/** How PostgREST names a media type in PGRST107 and Content-Type (PR MediaType.hs toMime). */
function toMime(t: MediaType): string {
  if (t.kind !== 'plan') return t.mime;
  return `application/vnd.pgrst.plan+${t.format}; for="${toMime(t.for)}"${t.options.length ? `; options=${t.options.join('|')}` : ''}`;
}

/** What a media type gives, if this server makes it: plans only when `plans` (PostgREST's db-plan-enabled). */
function produce(t: MediaType, plans: boolean): Negotiated | undefined {
  if (t.kind === 'produced') return { shape: t.shape };
  if (t.kind !== 'plan' || !plans || t.for.kind !== 'produced') return undefined;
  return { shape: t.for.shape, explain: { format: t.format, options: t.options, contentType: toMime(t) + CHARSET } };
}

/**
 * Content negotiation (PR Plan/Negotiate.hs): the first acceptable type of `Accept` wins, JSON when
 * there is none; a header naming nothing we make is answered 406 PGRST107. `plans`: whether the
 * caller may have the statement's EXPLAIN (application/vnd.pgrst.plan); for anyone else it is a
 * type not produced, as in PostgREST with db-plan-enabled off.
 */
export function negotiate(header: string | undefined, plans: boolean): Negotiated {
  const types = header === undefined ? [decode('*/*')] : acceptList(header).map(decode);
  for (const t of types) {
    const n = produce(t, plans);
    if (n) return n;
  }
  throw new RestError(406, 'PGRST107', `None of these media types are available: ${types.map(toMime).join(', ')}`);
}
