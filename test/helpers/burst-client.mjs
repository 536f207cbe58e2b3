// One user's burst and another user's request, sent from a process of their own: the server's
// event loop, which PGlite shares, then decides who is served when, not the test's fetch calls.
// Prints {answeredBefore, otherStatus, burst: [{status, retryAfter, code}]} as JSON.
const { burst, other, count } = JSON.parse(process.argv[2]);

let answered = 0;
const send = (r) => fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
const calls = Array.from({ length: count }, () =>
  send(burst).then(async (res) => {
    answered += 1;
    const body = await res.text();
    return { status: res.status, retryAfter: res.headers.get('retry-after'), code: res.ok ? undefined : JSON.parse(body).code };
  }),
);
// Once the server is busy with the burst.
await Promise.race(calls);
const res = await send(other);
const answeredBefore = answered;
await res.text();
process.stdout.write(JSON.stringify({ answeredBefore, otherStatus: res.status, burst: await Promise.all(calls) }));
