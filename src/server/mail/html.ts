import { html, raw } from 'hono/html';

export { html, raw };

/**
 * hono/html's template as a string, for a mail or a page: every value escaped, a nested `html`
 * template kept as it is. None of ours holds a promise, so none yields one.
 */
export function htmlText(strings: TemplateStringsArray, ...values: unknown[]): string {
  const out = html(strings, ...values);
  if (out instanceof Promise) throw new Error('an HTML template was given a promise');
  return out.toString();
}
