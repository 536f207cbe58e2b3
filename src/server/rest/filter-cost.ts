import type { DbRole } from '../db/with-claims';
import { RestError } from './errors';
import { MAX_FTS_LENGTH, MAX_IN_VALUES, MAX_LIKE_LENGTH, MAX_REGEX_LENGTH, MAX_REGEX_REPEAT } from './query-limits';
import { isLogicTree, type Condition, type Filter } from './parse-query';

/*
 * A first filter against obvious abuse, not the defence: every REST statement runs under a
 * deadline on both databases (statement_timeout on PostgreSQL, the statement watchdog on PGlite),
 * which holds whatever a pattern does. The limits of query-limits.ts refuse what is plainly costly
 * before it reaches the database.
 */

/**
 * What would make PostgreSQL read a pattern otherwise than this check does: a director (`***:`,
 * `***=`) or embedded options at its start (`(?b)` basic syntax, where groups are `\(…\)`, `(?x)`
 * where `#` starts a comment, `(?q)` literal, and the other flags of PostgreSQL's regex engine:
 * c e i m n p s t w). `(?:`, `(?=`, `(?!` and the lookbehinds are groups, and stay allowed.
 */
const DIRECTOR_OR_OPTIONS = /^(\*\*\*|\(\?[a-zA-Z]*\))/;

const REGEX_OPS = new Set(['match', 'imatch']);

const FTS_OPS = new Set(['fts', 'plfts', 'phfts', 'wfts']);

function refuse(f: Filter, why: string): RestError {
  const modifier = 'quantifier' in f && f.quantifier ? `(${f.quantifier})` : 'language' in f && f.language !== undefined ? `(${f.language})` : '';
  return new RestError(400, 'PGRST100', `"failed to parse filter (${f.op}${modifier}.${String(f.value).slice(0, 40)})"`, why);
}

/** Scanner whitespace of PostgreSQL's array input, dropped around an unquoted element. */
const ARRAY_SPACE = new Set([' ', '\t', '\n', '\r', '\v', '\f']);

/**
 * The elements of a PostgreSQL array literal as array_in reads them, at every depth: a backslash
 * takes the next character as it is, double quotes protect, whitespace around an unquoted element
 * is dropped. A literal PostgreSQL would refuse is refused there, at no cost, so this only has to
 * read well-formed ones the same way.
 */
export function arrayElements(literal: string): string[] {
  const out: string[] = [];
  let item = '';
  let started = false;
  // Up to where `item` holds quoted or escaped characters, which trailing whitespace never trims.
  let kept = 0;
  let quoted = false;
  for (let i = 0; i < literal.length; i++) {
    const ch = literal[i]!;
    if (ch === '\\' && i + 1 < literal.length) {
      item += literal[++i];
      kept = item.length;
      started = true;
    } else if (ch === '"') {
      quoted = !quoted;
      kept = item.length;
      started = true;
    } else if (quoted) {
      item += ch;
      kept = item.length;
    } else if (ch === '{' || ch === '}' || ch === ',') {
      if (started) out.push(trimEnd(item, kept));
      item = '';
      kept = 0;
      started = false;
    } else if (started || !ARRAY_SPACE.has(ch)) {
      item += ch;
      started = true;
    }
  }
  return out;
}

function trimEnd(item: string, kept: number): string {
  let end = item.length;
  while (end > kept && ARRAY_SPACE.has(item[end - 1]!)) end -= 1;
  return item.slice(0, end);
}

/**
 * Why a regular expression is refused, or undefined. Backreferences make PostgreSQL's engine
 * backtrack (`(.+)(.+)(.+)(.+)\4\3\2\1` ran 16 s on PostgreSQL over a 76-character text), and a
 * quantified group that holds a quantifier, or a large bound, makes it compile for seconds or fail.
 */
export function regexProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_REGEX_LENGTH) return `regular expressions may be at most ${MAX_REGEX_LENGTH} characters`;
  if (DIRECTOR_OR_OPTIONS.test(pattern)) return 'embedded options and directors (***) are not allowed in regular expressions; use imatch to ignore case';
  // For each open group: whether it holds a quantifier.
  const groups: boolean[] = [];
  let lastGroupQuantified = false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const afterGroup = lastGroupQuantified;
    lastGroupQuantified = false;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not allowed in regular expressions';
      i += 1;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a member, not the end.
      if (pattern[i + 1] === '^') i += 1;
      if (pattern[i + 1] === ']') i += 1;
      continue;
    }
    if (ch === '(') {
      groups.push(false);
      continue;
    }
    if (ch === ')') {
      lastGroupQuantified = groups.pop() ?? false;
      // A group holding a quantified group holds a quantifier too.
      if (lastGroupQuantified && groups.length) groups[groups.length - 1] = true;
      continue;
    }
    if (ch === '*' || ch === '+' || ch === '?' || ch === '{') {
      if (ch === '{') {
        const m = /^\{(\d*)(,(\d*))?\}/.exec(pattern.slice(i));
        if (m) {
          const bounds = [m[1], m[3]].filter((b) => b !== undefined && b !== '').map(Number);
          if (bounds.some((b) => b > MAX_REGEX_REPEAT)) return `repetition bounds in regular expressions may be at most ${MAX_REGEX_REPEAT}`;
          i += m[0].length - 1;
        }
      }
      // `*?`, `+?`, `??`: a lazy quantifier is one quantifier, not two.
      if (ch !== '?' || !/[*+?}]/.test(pattern[i - 1] ?? '')) {
        if (afterGroup) return 'a quantified group may not itself contain a quantifier in regular expressions';
        if (groups.length) groups[groups.length - 1] = true;
      }
    }
  }
  return undefined;
}

function checkRegex(f: Filter, patterns: readonly string[], role: DbRole): void {
  if (role === 'anon') throw refuse(f, 'regular expression filters (match, imatch) need a signed-in user; use like or ilike');
  for (const pattern of patterns) {
    const why = regexProblem(pattern);
    if (why) throw refuse(f, why);
  }
}

function check(f: Filter, role: DbRole): void {
  if (f.op === 'in') {
    if (f.value.length > MAX_IN_VALUES) throw refuse(f, `in lists may hold at most ${MAX_IN_VALUES} values`);
    return;
  }
  if (f.op === 'is') return;
  // A quantified filter, `like(any).{a*,b*}`, holds a list as long as `in` may, each element bounded as its operator's value.
  const quantified = 'quantifier' in f && f.quantifier !== undefined;
  const values = quantified ? arrayElements(f.value) : [f.value];
  if (values.length > MAX_IN_VALUES) throw refuse(f, `${f.op}(any) and ${f.op}(all) lists may hold at most ${MAX_IN_VALUES} values`);
  if (REGEX_OPS.has(f.op)) checkRegex(f, values, role);
  else if ((f.op === 'like' || f.op === 'ilike') && values.some((v) => v.length > MAX_LIKE_LENGTH)) {
    throw refuse(f, `like patterns may be at most ${MAX_LIKE_LENGTH} characters`);
  } else if (FTS_OPS.has(f.op) && f.value.length > MAX_FTS_LENGTH) {
    throw refuse(f, `full-text search queries may be at most ${MAX_FTS_LENGTH} characters`);
  }
}

/** Refuses, before anything reaches the database, every filter of `conditions` whose cost is not bounded. */
export function checkFilterCost(conditions: readonly Condition[], role: DbRole): void {
  for (const c of conditions) {
    if (isLogicTree(c)) checkFilterCost(c.children, role);
    else check(c, role);
  }
}
