import { PASSWORD } from './seed';

export type Session = { access_token: string; refresh_token: string };

/** The anon key the browser gets from /config.json: the `apikey` header of every API call. */
export async function anonKey(url: string): Promise<string> {
  return ((await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
}

/** Signs in with the password grant, as supabase-js's signInWithPassword does. */
export async function signIn(url: string, apikey: string, email: string): Promise<Session> {
  const r = await fetch(`${url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (r.status !== 200) throw new Error(`sign-in of ${email} answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as Session;
}

/** Signs everyone in, a few at a time (each costs a bcrypt comparison). */
export async function signInAll(url: string, apikey: string, emails: readonly string[]): Promise<Session[]> {
  const out: Session[] = [];
  for (let i = 0; i < emails.length; i += 4) out.push(...(await Promise.all(emails.slice(i, i + 4).map((e) => signIn(url, apikey, e)))));
  return out;
}

/** The claims of a JWT, unverified: for building a ceiling's statement with the same claims. */
export function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}
