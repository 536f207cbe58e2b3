import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/server/paths';
import { freePort } from '../helpers/process';
import { until } from '../helpers/wait';

const embedded = process.env.TEST_DB !== 'postgres';

/** A plain shell's environment: none of the test runner's or this project's settings. */
function newcomerEnv(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) };
  for (const k of ['npm_config_cache', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'LANG']) if (process.env[k]) env[k] = process.env[k];
  return env;
}

/**
 * The README's contract with a newcomer, run for real on the committed code: a fresh clone,
 * `npm install && npm start`, and the printed admin password signs in through supabase-js.
 */
describe.runIf(embedded)('a newcomer on a fresh clone', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'nh-newcomer-')), 'nodeharbor');
  let child: ReturnType<typeof spawn> | undefined;
  afterAll(() => {
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
  });

  it('runs `npm install && npm start` and signs in as the printed admin', async () => {
    execFileSync('git', ['clone', '--quiet', ROOT, dir]);
    const port = await freePort();
    let out = '';
    // As the README says it, through a shell; its own process group so the test can stop it whole.
    child = spawn('sh', ['-c', 'npm install --no-audit --no-fund && npm start'], {
      cwd: dir,
      detached: true,
      env: newcomerEnv(port),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const url = `http://localhost:${port}`;
    await until(
      'npm start to answer /healthz',
      async () => {
        if (child!.exitCode !== null) throw new Error(`npm start exited with ${child!.exitCode}:\n${out}`);
        return fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
      },
      600_000,
      500,
    );
    const email = /e-mail:\s+(\S+)/.exec(out)?.[1];
    const password = /password:\s+(\S+)/.exec(out)?.[1];
    expect(email, out).toBe('admin@nodeharbor.local');
    expect(password, out).toBeTruthy();

    const home = await fetch(url);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<div id="root"');

    const config = (await (await fetch(`${url}/config.json`)).json()) as { supabaseUrl: string; supabaseAnonKey: string };
    const supabase = createClient(config.supabaseUrl, config.supabaseAnonKey, { auth: { persistSession: false } });
    const { data, error } = await supabase.auth.signInWithPassword({ email: email!, password: password! });
    expect(error).toBeNull();
    expect(data.user?.email).toBe('admin@nodeharbor.local');
    const { data: isAdmin } = await supabase.rpc('is_user_admin', { user_uuid: data.user!.id });
    expect(isAdmin).toBe(true);
  }, 600_000);
});
