/**
 * A value as a SQL literal: an E'' string, whose meaning does not depend on
 * standard_conforming_strings, with backslashes and quotes doubled; NULL for null.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new TypeError(`cannot write a ${typeof value} as a SQL literal`);
  }
  const s = String(value);
  // PostgreSQL refuses U+0000 in text, as a bound parameter it would be refused too.
  if (s.includes('\u0000')) throw new TypeError('a SQL literal cannot hold U+0000');
  return `E'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

const IDENT_CHAR = /[A-Za-z0-9_$]/;

/**
 * The statement with each placeholder `$n` replaced by the literal of `params[n - 1]`. Quoted
 * identifiers, string literals and comments are copied untouched, so a `$1` inside them (an alias
 * taken from a URL, say) stays text. Dollar-quoted strings are refused rather than guessed at.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      // A quoted section ends at a lone quote; a doubled quote is part of it.
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new SyntaxError('unterminated quoted section in a statement to inline');
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      if (ch === "'" && /[Ee]$/.test(out) && !IDENT_CHAR.test(out.at(-2) ?? ' ')) {
        throw new SyntaxError('E strings are not supported in a statement to inline');
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const j = end === -1 ? sql.length : end;
      out += sql.slice(i, j);
      i = j;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new SyntaxError('unterminated comment in a statement to inline');
      out += sql.slice(i, end + 2);
      i = end + 2;
    } else if (ch === '$' && !IDENT_CHAR.test(sql[i - 1] ?? ' ')) {
      const m = /^\$(\d+)/.exec(sql.slice(i));
      if (!m) throw new SyntaxError('dollar quoting is not supported in a statement to inline');
      const n = Number(m[1]);
      if (n < 1 || n > params.length) throw new RangeError(`no parameter $${n} (${params.length} given)`);
      out += sqlLiteral(params[n - 1]);
      i += m[0].length;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
