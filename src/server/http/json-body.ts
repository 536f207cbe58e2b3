import type { Context } from 'hono';

/**
 * How deeply arrays and objects may nest in a request's JSON body. Every body is checked before
 * it is parsed, so no recursive code (JSON.stringify, our own walks, PostgreSQL's jsonb parser)
 * ever sees more; 64 is far beyond any payload of this product.
 */
export const MAX_JSON_DEPTH = 64;

export const JSON_TOO_DEEP = `JSON may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep`;
export const BODY_NOT_RECEIVED = 'The request body was not received in full';

/**
 * The body as text, or undefined when it never arrived whole: the client went away or was cut
 * off mid-body (REQUEST_TIMEOUT_SECONDS). Each API answers that with its own 400, never a 500.
 */
export async function readBodyText(c: Context): Promise<string | undefined> {
  try {
    return await c.req.text();
  } catch {
    return undefined;
  }
}

/**
 * Whether `text` opens more than `max` arrays or objects inside one another. A scan of the raw
 * text with a counter, never recursion, so that a hostile body cannot exhaust the stack here
 * either; brackets inside strings do not count. Invalid JSON is left for JSON.parse to refuse.
 */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i += 1; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: 'invalid' | 'too-deep' };

/** Parses a request body, refusing one nested deeper than MAX_JSON_DEPTH before JSON.parse sees it. */
export function parseJsonBody(text: string): ParsedJson {
  if (exceedsJsonDepth(text)) return { ok: false, reason: 'too-deep' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
}

/**
 * Whether a parsed body holds U+0000 in any key or string, which PostgreSQL's text and jsonb
 * cannot store. Walked with an explicit stack rather than recursion.
 */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      // One push per element: spreading a large array would overflow the argument stack.
      for (const x of v as unknown[]) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(x);
      }
    }
  }
  return false;
}
