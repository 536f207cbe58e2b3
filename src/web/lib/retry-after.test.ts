import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchRememberingRetryAfter, PASSING_RETRIES, rateLimitText, retryAfterSeconds } from './retry-after';

const answer = (status: number, headers: Record<string, string> = {}) => vi.fn(async () => new Response('{}', { status, headers }));

/** Answers in turn, the last one ever after; each a fresh Response, as a server would send. */
const answers = (...list: [number, string][]) => {
  let i = 0;
  return vi.fn(async () => {
    const [status, code] = list[Math.min(i++, list.length - 1)]!;
    return new Response(JSON.stringify({ code, message: 'm' }), { status, headers: { 'Retry-After': '0' } });
  });
};

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

  it.each([
    [429, 'PGRST003'],
    [503, 'PGRST003'],
    [409, '55P03'],
    [504, '57014'],
  ])('sends a request again when its answer (%s %s) says it took no effect', async (status, code) => {
    const fetchMock = answers([status, code], [200, 'ok']);
    vi.stubGlobal('fetch', fetchMock);
    const init = { method: 'POST', body: '{"p_service_id":"x"}' };
    const res = await fetchRememberingRetryAfter('http://x/rest/v1/rpc/manage_service_operation', init);
    expect(res.status).toBe(200);
    expect(fetchMock.mock.calls).toEqual([
      ['http://x/rest/v1/rpc/manage_service_operation', init],
      ['http://x/rest/v1/rpc/manage_service_operation', init],
    ]);
  });

  it('gives the person the answer after its retries, and never sends again what may have taken effect or was rate limited', async () => {
    const busy = answers([429, 'PGRST003']);
    vi.stubGlobal('fetch', busy);
    expect((await fetchRememberingRetryAfter('http://x/rest/v1/services')).status).toBe(429);
    expect(busy).toHaveBeenCalledTimes(PASSING_RETRIES + 1);

    for (const [status, code] of [
      [503, 'PGRST001'],
      [429, 'over_request_rate_limit'],
      [409, '23505'],
      [500, 'PGRST003'],
    ] as [number, string][]) {
      const once = answers([status, code], [200, 'ok']);
      vi.stubGlobal('fetch', once);
      expect((await fetchRememberingRetryAfter('http://x/rest/v1/rpc/f', { method: 'POST', body: '{}' })).status).toBe(status);
      expect(once).toHaveBeenCalledTimes(1);
    }
  });
});
