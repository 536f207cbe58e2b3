/** One field of an audit entry's before and after: a change ("balance 50.00 → 62.50") or a value given ("note Goodwill"). */
export type ChangeLine = { field: string; before?: string; after?: string };

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const fields = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * An entry's before and after, field by field, for the audit table: a field in both shows as a
 * change when it differs (and not at all when it does not); a field on one side only shows its value.
 * Changes come first, then the other fields by name.
 * A side that is not an object (an array, a number) shows whole, under "value".
 */
export function describeChange(before: unknown, after: unknown): ChangeLine[] {
  const whole = (v: unknown) => v !== null && v !== undefined && (typeof v !== 'object' || Array.isArray(v));
  if (whole(before) || whole(after)) return [{ field: 'value', ...(before != null && { before: text(before) }), ...(after != null && { after: text(after) }) }];
  const b = fields(before);
  const a = fields(after);
  const lines: ChangeLine[] = [];
  for (const field of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const inBefore = Object.hasOwn(b, field);
    const inAfter = Object.hasOwn(a, field);
    if (inBefore && inAfter && text(b[field]) === text(a[field])) continue;
    lines.push({ field, ...(inBefore && { before: text(b[field]) }), ...(inAfter && { after: text(a[field]) }) });
  }
  // jsonb keeps keys by length, not as written: changes first, then the rest by name.
  const changed = (l: ChangeLine) => (l.before !== undefined && l.after !== undefined ? 0 : 1);
  return lines.sort((x, y) => changed(x) - changed(y) || x.field.localeCompare(y.field));
}
