import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { IMPACT_LABELS, STATUS_DAYS, STATUS_LABELS, type Incident } from '../../shared/status-page';
import type { DayFigure, StatusSummary } from './status-summary';

/** At or above: a good day; below PARTIAL: a bad one. */
const GOOD = 99.5;
const PARTIAL = 95;

export const statusTexts = {
  operational: 'All systems operational',
  major: 'Major outage',
  minor: 'Some systems are degraded',
  maintenance: 'Maintenance in progress',
  apiDown: 'The API is not answering',
  notEnough: 'Not enough nodes to report',
  noProbes: 'Not measured yet',
  noIncidents: 'No incidents in the last 90 days.',
  allServices: 'All services',
};

/** The page's headline: the worst open incident, else the API's last probe. */
export function headline(s: StatusSummary): { text: string; tone: 'ok' | 'warn' | 'down' } {
  const open = s.incidents.filter((i) => i.resolved_at === null);
  if (open.some((i) => i.impact === 'major')) return { text: statusTexts.major, tone: 'down' };
  if (open.some((i) => i.impact === 'minor')) return { text: statusTexts.minor, tone: 'warn' };
  if (open.some((i) => i.impact === 'maintenance')) return { text: statusTexts.maintenance, tone: 'warn' };
  if (s.api.last_ok === false) return { text: statusTexts.apiDown, tone: 'down' };
  return { text: statusTexts.operational, tone: 'ok' };
}

const percent = (v: number) => `${v.toFixed(2)} %`;
/** "2026-11-27 09:30 UTC" */
const utc = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The last STATUS_DAYS UTC days, oldest first, as YYYY-MM-DD, ending on `generatedAt`'s day. */
function lastDays(generatedAt: string): string[] {
  const today = Date.parse(`${generatedAt.slice(0, 10)}T00:00:00Z`);
  return Array.from({ length: STATUS_DAYS }, (_, i) => new Date(today - (STATUS_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

function bars(label: string, figures: DayFigure[], days: string[]): HtmlEscapedString | Promise<HtmlEscapedString> {
  const byDay = new Map(figures.map((f) => [f.day, f.availability]));
  return html`<ol class="bars" aria-label="${label}, the last ${STATUS_DAYS} days">
    ${days.map((day) => {
      const v = byDay.get(day);
      const text = v === undefined ? `${day}: no figure` : `${day}: ${percent(v)}`;
      const tone = v === undefined ? 'none' : v >= GOOD ? 'up' : v >= PARTIAL ? 'partial' : 'down';
      return html`<li class="${tone}" title="${text}"><span class="sr-only">${text}</span></li>`;
    })}
  </ol>
  <p class="axis" aria-hidden="true"><span>${STATUS_DAYS} days ago</span><span>Today</span></p>`;
}

function figures(today: number | null, ninety: number | null, none: string) {
  if (today === null && ninety === null) return html`<p class="figures">${none}</p>`;
  return html`<p class="figures">
    Today: <strong>${today === null ? none : percent(today)}</strong> · ${STATUS_DAYS} days: <strong>${ninety === null ? none : percent(ninety)}</strong>
  </p>`;
}

function incident(i: Incident, names: Map<string, string>) {
  const product = i.product_code === null ? statusTexts.allServices : (names.get(i.product_code) ?? i.product_code);
  return html`<article class="incident ${i.impact}">
    <h3>${i.title}</h3>
    <p class="meta">
      ${IMPACT_LABELS[i.impact]} · ${product} · Opened <time datetime="${i.opened_at}">${utc(i.opened_at)}</time>${
        i.resolved_at ? html` · Resolved <time datetime="${i.resolved_at}">${utc(i.resolved_at)}</time>` : ''
      }
    </p>
    <ol class="updates">
      ${i.updates.map(
        (u) => html`<li>
          <p><strong>${STATUS_LABELS[u.status]}</strong> · <time datetime="${u.posted_at}">${utc(u.posted_at)}</time></p>
          <p class="body">${u.body}</p>
        </li>`,
      )}
    </ol>
  </article>`;
}

/** The whole page: HTML and one stylesheet of ours, no script, readable as it arrives. */
export function renderStatusPage(s: StatusSummary): Promise<string> {
  const top = headline(s);
  const days = lastDays(s.generated_at);
  const names = new Map(s.products.map((p) => [p.code, p.name]));
  return Promise.resolve(
    html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>NodeHarbor status</title>
        <link rel="stylesheet" href="/status.css" />
      </head>
      <body>
        <header>
          <a class="home" href="/">NodeHarbor</a>
          <h1>System status</h1>
        </header>
        <main>
          <p class="banner ${top.tone}">${top.text}</p>
          <section aria-labelledby="nodes">
            <h2 id="nodes">Nodes</h2>
            <p class="note">The share of paid nodes online, as our monitor measured them.</p>
            ${s.products.map(
              (p) => html`<article class="row">
                <h3>${p.name}</h3>
                ${figures(p.today, p.ninety_days, statusTexts.notEnough)} ${bars(p.name, p.days, days)}
              </article>`,
            )}
          </section>
          <section aria-labelledby="api">
            <h2 id="api">API</h2>
            <p class="note">The share of minutes in which the API answered our own probe.</p>
            <article class="row">${figures(s.api.today, s.api.ninety_days, statusTexts.noProbes)} ${bars('API', s.api.days, days)}</article>
          </section>
          <section aria-labelledby="incidents">
            <h2 id="incidents">Incidents</h2>
            ${s.incidents.length === 0 ? html`<p>${statusTexts.noIncidents}</p>` : s.incidents.map((i) => incident(i, names))}
          </section>
        </main>
        <footer>
          <p>Updated <time datetime="${s.generated_at}">${utc(s.generated_at)}</time>. Times are in UTC.</p>
        </footer>
      </body>
    </html>`,
  ).then(String);
}

/** /status.css: light and dark, each with contrast of at least 4.5:1 for text. */
export const STATUS_CSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#111827;--muted:#4b5563;--line:#e5e7eb;--up:#15803d;--partial:#b45309;--down:#b91c1c;--none:#d1d5db}
@media (prefers-color-scheme:dark){:root{--bg:#0b1120;--fg:#f3f4f6;--muted:#9ca3af;--line:#1f2937;--up:#22c55e;--partial:#f59e0b;--down:#f87171;--none:#374151}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:56rem;margin:0 auto;padding:1rem}
header{display:flex;align-items:baseline;gap:1rem;border-bottom:1px solid var(--line)}
.home{color:var(--fg);font-weight:700;text-decoration:none}h1{font-size:1.25rem;margin:0}
h2{font-size:1.125rem;margin:2rem 0 .25rem}h3{font-size:1rem;margin:0 0 .25rem}
.note,.meta,.axis,footer{color:var(--muted);font-size:.875rem}
.banner{padding:1rem;border-radius:.5rem;font-weight:600;color:#fff}
.banner.ok{background:#15803d}.banner.warn{background:#b45309}.banner.down{background:#b91c1c}
.row{padding:1rem 0;border-bottom:1px solid var(--line)}.figures{margin:0 0 .5rem}
.bars{display:flex;gap:2px;list-style:none;margin:0;padding:0;height:2rem}
.bars li{flex:1;border-radius:2px;background:var(--none)}
.bars .up{background:var(--up)}.bars .partial{background:var(--partial)}.bars .down{background:var(--down)}
.axis{display:flex;justify-content:space-between;margin:.25rem 0 0}
.incident{padding:1rem 0;border-bottom:1px solid var(--line)}.updates{list-style:none;padding:0;margin:0}
.updates li{border-left:2px solid var(--line);padding-left:.75rem;margin:.5rem 0}.updates p{margin:0}
.body{white-space:pre-line}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
`;
