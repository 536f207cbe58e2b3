/**
 * The limits of a /rest/v1 query string, each answered 400 PGRST100 before anything reaches the
 * database (README, "Limits of the API"). PostgreSQL's own ceilings are otherwise met as 500s
 * (1,664 entries in a select list, sort keys included: 54011), and PGlite runs every statement on
 * the server's own thread, so the cost of one request has to be bounded before it is built.
 */

/** Items in `select=`, embedded resources' included; `*` may appear once per level, and counts as one. */
export const MAX_SELECT_ITEMS = 100;
/** Embedded resources inside one another: each level is a lateral subquery per row of the one above. */
export const MAX_EMBED_DEPTH = 4;
/** Embedded resources in one `select=`. */
export const MAX_EMBEDS = 16;
/** Terms in `order=`. */
export const MAX_ORDER_TERMS = 32;
/** Levels of `or=(...)` / `and(...)` inside one another. */
export const MAX_LOGIC_DEPTH = 16;
/** Values in one `in.(...)` list, or in the array of a quantified filter: `eq(any).{...}`, `like(all).{...}`. */
export const MAX_IN_VALUES = 1000;
/** Characters of a `like` or `ilike` pattern, each of a `like(any)` or `like(all)` list included. */
export const MAX_LIKE_LENGTH = 1000;
/** Characters of a `match` or `imatch` regular expression. */
export const MAX_REGEX_LENGTH = 100;
/** Largest `{m,n}` bound of a regular expression: it repeats its operand n times in the compiled automaton. */
export const MAX_REGEX_REPEAT = 20;
/** Characters of a full-text query (`fts`, `plfts`, `phfts`, `wfts`): every row is matched against the whole parsed query. */
export const MAX_FTS_LENGTH = 1000;
