import type { LoadResult } from './load';

/** One line of the table: a label, its budget, and a cell per database (or one for both). */
export type Row = { label: string; budget: string; cells: string[] };

export const num = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms` : 'n/a');

export function load(r: LoadResult | undefined, unit = 'req/s'): string {
  if (!r) return '-';
  return `${num(r.rps)} ${unit}, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, ${r.errors} err`;
}

/** A verdict: ✓ met, ✗ missed, with what was measured. */
export function verdict(met: boolean, text: string): string {
  return `${met ? '✓' : '✗'} ${text}`;
}

export function printTable(headers: string[], rows: Row[]): string {
  const all = [headers, ...rows.map((r) => [r.label, r.budget, ...r.cells])];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${headers.map((_, i) => (r[i] ?? '').padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...all.slice(1).map(line)].join('\n');
}
