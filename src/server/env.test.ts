import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './env';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

const paypal = { PAYPAL_CLIENT_ID: 'id', PAYPAL_CLIENT_SECRET: 'secret-value', PAYPAL_MODE: 'live', PAYPAL_WEBHOOK_ID: 'WH-1' };

describe('loadConfig: PayPal', () => {
  it('is the test provider when nothing is set', () => {
    expect(loadConfig({}).paypal).toBeUndefined();
  });

  it('picks the host from the mode, or PAYPAL_API_URL', () => {
    expect(loadConfig(paypal).paypal).toEqual({
      clientId: 'id', clientSecret: 'secret-value', mode: 'live', webhookId: 'WH-1', apiUrl: 'https://api-m.paypal.com', timeoutMs: 15_000,
    });
    expect(loadConfig({ ...paypal, PAYPAL_MODE: 'Sandbox' }).paypal?.apiUrl).toBe('https://api-m.sandbox.paypal.com');
    expect(loadConfig({ ...paypal, PAYPAL_API_URL: 'http://127.0.0.1:9/', PAYPAL_TIMEOUT_MS: '500' }).paypal).toMatchObject({
      apiUrl: 'http://127.0.0.1:9', timeoutMs: 500,
    });
  });

  it('is all or nothing, with a clear line, and never prints the secret', () => {
    const p = problems({ PAYPAL_CLIENT_ID: 'id', PAYPAL_CLIENT_SECRET: 'secret-value' });
    expect(p).toEqual(['PayPal needs PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_MODE and PAYPAL_WEBHOOK_ID together; missing: PAYPAL_MODE, PAYPAL_WEBHOOK_ID']);
    expect(problems({ ...paypal, PAYPAL_MODE: 'prod' })).toEqual(['PAYPAL_MODE must be sandbox or live, got "prod"']);
    expect(problems({ PAYPAL_API_URL: 'http://127.0.0.1:9' })).toHaveLength(1);
    expect(problems({ ...paypal, PAYPAL_MODE: 'prod' }).join()).not.toContain('secret-value');
  });
});

describe('loadConfig', () => {
  it('gives the embedded defaults with no variables', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      publicUrl: 'http://localhost:8080',
      publicUrlSet: false,
      dataDir: './data',
      databaseUrl: undefined,
      registrationEnabled: false,
      devHostSuffixes: ['.lovableproject.com'],
      jwtExpiry: 3600,
    });
  });

  it('configures the worker and the simulated provisioner, 0 seconds allowed for tests', () => {
    expect(loadConfig({})).toMatchObject({
      runWorker: true,
      workerConcurrency: 4,
      workerPollMs: 1000,
      jobLeaseSeconds: 60,
      provisionInstallSeconds: 20,
      provisionDeleteSeconds: 10,
    });
    expect(loadConfig({ PROVISION_INSTALL_SECONDS: '0', PROVISION_DELETE_SECONDS: '0', RUN_WORKER: 'false' })).toMatchObject({
      runWorker: false,
      provisionInstallSeconds: 0,
      provisionDeleteSeconds: 0,
    });
    expect(problems({ PROVISION_INSTALL_SECONDS: '-1', JOB_LEASE_SECONDS: '0', WORKER_CONCURRENCY: 'many' })).toEqual([
      'WORKER_CONCURRENCY must be a whole number from 1 to 100, got "many"',
      'JOB_LEASE_SECONDS must be a whole number from 1 to 3600, got "0"',
      'PROVISION_INSTALL_SECONDS must be a whole number from 0 to 3600, got "-1"',
    ]);
  });

  it('reads overrides', () => {
    const c = loadConfig({
      PORT: '9000',
      PUBLIC_URL: 'https://nodeharbor.example/',
      REGISTRATION_ENABLED: 'true',
      DEV_HOST_SUFFIXES: ' .preview.example, .lovableproject.com ,',
      DATABASE_URL: 'postgres://u:p@db:5432/x',
      JWT_SECRET: 'x'.repeat(32),
      ENCRYPTION_KEY: 'y'.repeat(32),
    });
    expect(c.port).toBe(9000);
    expect(c.publicUrl).toBe('https://nodeharbor.example');
    expect(c.registrationEnabled).toBe(true);
    expect(c.devHostSuffixes).toEqual(['.preview.example', '.lovableproject.com']);
  });

  it('reports every bad variable at once, each on its own line', () => {
    expect(
      problems({ PORT: 'eighty', REGISTRATION_ENABLED: 'maybe', PUBLIC_URL: 'nodeharbor', SMTP_URL: 'http://x', JWT_SECRET: 'short' }),
    ).toEqual([
      'PORT must be a whole number from 0 to 65535, got "eighty"',
      'PUBLIC_URL must be a http: or https: URL, got "nodeharbor"',
      'JWT_SECRET must be at least 32 characters long',
      'REGISTRATION_ENABLED must be true or false, got "maybe"',
      'SMTP_URL must be a smtp: or smtps: URL, got "http://x"',
    ]);
  });

  it('never prints a database password back', () => {
    const [p] = problems({ DATABASE_URL: 'mysql://user:hunter2@db/x' });
    expect(p).toContain('mysql://user:***@db/x');
    expect(p).not.toContain('hunter2');
  });

  it('requires shared secrets when several processes share a PostgreSQL', () => {
    expect(problems({ DATABASE_URL: 'postgres://db/x' })).toEqual([
      'JWT_SECRET is required with DATABASE_URL, so that every server process signs and checks the same tokens',
      'ENCRYPTION_KEY is required with DATABASE_URL, so that every server process can read the stored API keys',
    ]);
  });
});
