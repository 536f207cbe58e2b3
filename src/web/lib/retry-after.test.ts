import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchRememberingRetryAfter, rateLimitText, retryAfterSeconds } from './retry-after';

const answer = (status: number, headers: Record<string, string> = {}) => vi.fn(async () => new Response('{}', { status, headers }));

const NOW = Date.parse('2026-11-24T10:00:00Z');

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('Retry-After', () => {
  it('remembers the wait of the last 429, in seconds or as a date, and forgets it on a 429 without one', async () => {
    // The clock stands still: the waits are exact.
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    vi.stubGlobal('fetch', answer(429, { 'Retry-After': '120' }));
    const res = await fetchRememberingRetryAfter('http://x/auth/v1/token');
    expect(res.status).toBe(429);
    expect(retryAfterSeconds()).toBe(120);
    expect(retryAfterSeconds(NOW + 30_500)).toBe(90);
    expect(retryAfterSeconds(NOW + 200_000)).toBe(0);

    vi.stubGlobal('fetch', answer(429, { 'Retry-After': new Date(NOW + 90_000).toUTCString() }));
    await fetchRememberingRetryAfter('http://x/auth/v1/token');
    expect(retryAfterSeconds()).toBe(90);

    vi.stubGlobal('fetch', answer(429));
    await fetchRememberingRetryAfter('http://x/auth/v1/token');
    expect(retryAfterSeconds()).toBeNull();
  });

  it('leaves other answers alone', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    vi.stubGlobal('fetch', answer(429, { 'Retry-After': '30' }));
    await fetchRememberingRetryAfter('http://x/auth/v1/token');
    vi.stubGlobal('fetch', answer(400, { 'Retry-After': '999' }));
    expect((await fetchRememberingRetryAfter('http://x/auth/v1/token')).status).toBe(400);
    expect(retryAfterSeconds()).toBe(30);
  });

  it.each([
    [null, 'Too many attempts. Please try again later.'],
    [1, 'Too many attempts. Please try again in 1 second.'],
    [45, 'Too many attempts. Please try again in 45 seconds.'],
    [60, 'Too many attempts. Please try again in 1 minute.'],
    [61, 'Too many attempts. Please try again in 2 minutes.'],
    [300, 'Too many attempts. Please try again in 5 minutes.'],
  ])('says when to try again: %s s', (seconds, text) => {
    expect(rateLimitText(seconds)).toBe(text);
  });
});
