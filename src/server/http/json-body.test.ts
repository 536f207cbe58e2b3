import { describe, expect, it } from 'vitest';
import { containsNul, exceedsJsonDepth, MAX_JSON_DEPTH, parseJsonBody } from './json-body';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('exceedsJsonDepth', () => {
  it('allows MAX_JSON_DEPTH levels and refuses one more, of arrays or objects', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(nestedObjects(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nestedObjects(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '['.repeat(1000), b: '\\"[[[[', c: '"{{{{' });
    expect(exceedsJsonDepth(text, 2)).toBe(false);
  });

  it('counts depth, not the number of siblings', () => {
    expect(exceedsJsonDepth(JSON.stringify(Array.from({ length: 10_000 }, () => [[1]])), 3)).toBe(false);
  });

  it('scans a 10,000-deep body without recursion', () => {
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
  });
});

describe('parseJsonBody', () => {
  it('tells a too deep body from an invalid one, and parses the rest', () => {
    expect(parseJsonBody(nested(10_000))).toEqual({ ok: false, reason: 'too-deep' });
    expect(parseJsonBody('{"a":')).toEqual({ ok: false, reason: 'invalid' });
    expect(parseJsonBody('{"a":[1,{"b":2}]}')).toEqual({ ok: true, value: { a: [1, { b: 2 }] } });
  });
});

describe('containsNul', () => {
  it('finds U+0000 in keys and strings at any depth, and in large arrays', () => {
    expect(containsNul({ a: [{ b: 'x\u0000' }] })).toBe(true);
    expect(containsNul({ a: { 'k\u0000': 1 } })).toBe(true);
    expect(containsNul(Array.from({ length: 500_000 }, () => 0))).toBe(false);
    expect(containsNul({ a: ['\\u0000', 1, null, true] })).toBe(false);
  });
});
