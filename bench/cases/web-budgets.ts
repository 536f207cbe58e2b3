// Case 6: the public site's budgets, measured by bench/web.ts (npm run bench:web): its latest
// results are read, with their date, or it is run first with --web.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/server/paths';

const FILE = join(ROOT, 'bench/results/web-latest.json');
const JS_BUDGET = 100 * 1024;
const SCORE_BUDGET = 95;

type WebResults = {
  date: string;
  routes: Record<string, { jsGzipBytes: number; axe: string[] }>;
  lighthouse: Record<string, { performance: number; accessibility: number }>;
  failures: string[];
};

export type WebSummary = {
  date: string;
  maxJs: { route: string; bytes: number };
  minPerformance: { route: string; score: number };
  minAccessibility: { route: string; score: number };
  axeViolations: number;
  failures: string[];
};

export function webBudgets(run: boolean): WebSummary | undefined {
  if (run) spawnSync(process.execPath, ['--import', 'tsx', 'bench/web.ts'], { cwd: ROOT, stdio: 'inherit' });
  if (!existsSync(FILE)) return undefined;
  const r = JSON.parse(readFileSync(FILE, 'utf8')) as WebResults;
  const js = Object.entries(r.routes).sort((a, b) => b[1].jsGzipBytes - a[1].jsGzipBytes)[0]!;
  const lh = Object.entries(r.lighthouse);
  const perf = lh.sort((a, b) => a[1].performance - b[1].performance)[0]!;
  const a11y = lh.sort((a, b) => a[1].accessibility - b[1].accessibility)[0]!;
  return {
    date: r.date,
    maxJs: { route: js[0], bytes: js[1].jsGzipBytes },
    minPerformance: { route: perf[0], score: perf[1].performance },
    minAccessibility: { route: a11y[0], score: a11y[1].accessibility },
    axeViolations: Object.values(r.routes).reduce((n, x) => n + x.axe.length, 0),
    failures: r.failures,
  };
}

export const WEB_BUDGETS = { jsBytes: JS_BUDGET, score: SCORE_BUDGET };
