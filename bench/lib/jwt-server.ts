// The ceiling of case 2: a bare Hono app whose one handler signs one JWT (the server's own signJwt,
// same claims as an access token) per request. Run as its own process, like the server; prints its port.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { signJwt } from '../../src/server/auth/tokens';

const claims = JSON.parse(process.argv[2]!) as Record<string, unknown>;
const keys = { jwtSecret: new TextEncoder().encode(process.argv[3]!) };
const app = new Hono();
app.post('/token', async (c) => {
  const iat = Math.floor(Date.now() / 1000);
  return c.json({ access_token: await signJwt(keys, { ...claims, iat, exp: iat + 3600 }) });
});
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`${info.port}\n`));
