import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './env';
import { UNREADABLE_URL } from './redact-url';

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
      clientId: 'id',
      clientSecret: 'secret-value',
      mode: 'live',
      webhookId: 'WH-1',
      apiUrl: 'https://api-m.paypal.com',
      timeoutMs: 15_000,
    });
    expect(loadConfig({ ...paypal, PAYPAL_MODE: 'Sandbox' }).paypal?.apiUrl).toBe('https://api-m.sandbox.paypal.com');
    expect(loadConfig({ ...paypal, PAYPAL_API_URL: 'http://127.0.0.1:9/', PAYPAL_TIMEOUT_MS: '500' }).paypal).toMatchObject({
      apiUrl: 'http://127.0.0.1:9',
      timeoutMs: 500,
    });
  });

  it('is all or nothing, with a clear line, and never prints the secret', () => {
    const p = problems({ PAYPAL_CLIENT_ID: 'id', PAYPAL_CLIENT_SECRET: 'secret-value' });
    expect(p).toEqual([
      'PayPal needs PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_MODE and PAYPAL_WEBHOOK_ID together; missing: PAYPAL_MODE, PAYPAL_WEBHOOK_ID',
    ]);
    expect(problems({ ...paypal, PAYPAL_MODE: 'prod' })).toEqual(['PAYPAL_MODE must be sandbox or live, got "prod"']);
    expect(problems({ PAYPAL_API_URL: 'http://127.0.0.1:9' })).toHaveLength(1);
    expect(problems({ ...paypal, PAYPAL_MODE: 'prod' }).join()).not.toContain('secret-value');
  });
});

describe('loadConfig: crypto top-ups through NOWPayments (decision 050)', () => {
  const np = { NOWPAYMENTS_API_KEY: 'KEY-1', NOWPAYMENTS_IPN_SECRET: 'ipn-secret-value', NOWPAYMENTS_EMAIL: 'm@example.com', NOWPAYMENTS_PASSWORD: 'pw-value' };

  it('is off without its settings, and on NOWPayments itself with them', () => {
    expect(loadConfig({}).nowPayments).toBeUndefined();
    expect(loadConfig(np).nowPayments).toEqual({
      apiKey: 'KEY-1',
      ipnSecret: 'ipn-secret-value',
      email: 'm@example.com',
      password: 'pw-value',
      apiUrl: 'https://api.nowpayments.io/v1',
      checkoutOrigin: 'https://nowpayments.io',
      timeoutMs: 15_000,
    });
  });

  it('is all or nothing, with a clear line, and never prints a secret', () => {
    const p = problems({ NOWPAYMENTS_API_KEY: 'KEY-1', NOWPAYMENTS_IPN_SECRET: 'ipn-secret-value' });
    expect(p).toEqual([
      'Crypto payments need NOWPAYMENTS_API_KEY, NOWPAYMENTS_IPN_SECRET, NOWPAYMENTS_EMAIL and NOWPAYMENTS_PASSWORD together; missing: NOWPAYMENTS_EMAIL, NOWPAYMENTS_PASSWORD',
    ]);
    expect(p.join()).not.toContain('ipn-secret-value');
    expect(problems({ NOWPAYMENTS_API_URL: 'http://127.0.0.1:9' })).toEqual([
      'NOWPAYMENTS_API_URL and NOWPAYMENTS_CHECKOUT_ORIGIN need the other NOWPAYMENTS_* settings',
    ]);
  });
});

describe('loadConfig: the test payment provider', () => {
  const publicSite = { NODE_ENV: 'production', PUBLIC_URL: 'https://nodeharbor.example' };

  it('is refused by default on a public address, with one line saying what to set', () => {
    expect(problems(publicSite)).toEqual([
      'PAYMENTS_PROVIDER must be set when PUBLIC_URL (https://nodeharbor.example) is not a local address: paypal, with the PAYPAL_* settings, or test, whose TEST payments add credit without taking any money',
    ]);
    for (const url of ['http://192.168.1.20:8080', 'http://localhost.example', 'http://[::2]', 'http://nodeharbor']) {
      expect(problems({ PUBLIC_URL: url })).toHaveLength(1);
    }
  });

  it('is the default only without PUBLIC_URL or on a loopback address', () => {
    for (const url of ['', 'http://localhost:8080', 'http://LOCALHOST', 'http://127.0.0.1:3000', 'http://127.8.9.10', 'http://[::1]:8080']) {
      expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: url }).paypal).toBeUndefined();
    }
  });

  it('is used on a public address when chosen with PAYMENTS_PROVIDER=test', () => {
    expect(loadConfig({ ...publicSite, PAYMENTS_PROVIDER: 'test' }).paypal).toBeUndefined();
  });

  it('is never mixed up with PayPal: PayPal needs its settings, and test refuses them', () => {
    expect(loadConfig({ ...publicSite, ...paypal }).paypal?.mode).toBe('live');
    expect(loadConfig({ ...publicSite, ...paypal, PAYMENTS_PROVIDER: 'paypal' }).paypal?.mode).toBe('live');
    expect(problems({ ...publicSite, PAYMENTS_PROVIDER: 'paypal' })).toEqual([
      'PAYMENTS_PROVIDER=paypal needs PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_MODE and PAYPAL_WEBHOOK_ID',
    ]);
    expect(problems({ PAYMENTS_PROVIDER: 'paypal' })).toHaveLength(1);
    expect(problems({ ...paypal, PAYMENTS_PROVIDER: 'test' })).toEqual([
      'PAYMENTS_PROVIDER=test, but PAYPAL_* settings are given too: remove them, or set PAYMENTS_PROVIDER=paypal',
    ]);
    expect(problems({ PAYMENTS_PROVIDER: 'stripe' })).toEqual(['PAYMENTS_PROVIDER must be test or paypal, got "stripe"']);
  });
});

describe('loadConfig: the network (issue 33, item 2)', () => {
  const needsProvider = (host: string) =>
    `PAYMENTS_PROVIDER must be set when HOST (${host}) is not a loopback address: paypal, with the PAYPAL_* settings, or test, whose TEST payments add credit without taking any money`;

  it('listens on loopback only without a public address, on every interface with one, and where HOST says', () => {
    expect(loadConfig({})).toMatchObject({ host: '127.0.0.1', publicUrl: 'http://localhost:8080' });
    for (const url of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:8080']) expect(loadConfig({ PUBLIC_URL: url }).host).toBe('127.0.0.1');
    expect(loadConfig({ PUBLIC_URL: 'https://nodeharbor.example', PAYMENTS_PROVIDER: 'test' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::1' }).host).toBe('::1');
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://nodeharbor.example', ...paypal }).host).toBe('0.0.0.0');
  });

  it('needs PUBLIC_URL when HOST is not a loopback address: links and the browser cannot use one', () => {
    expect(problems({ HOST: '0.0.0.0', PAYMENTS_PROVIDER: 'test' })).toEqual([
      'PUBLIC_URL must be set when HOST (0.0.0.0) is not a loopback address: it is the address links and the browser use',
    ]);
    for (const host of ['::', '192.168.1.20', 'nodeharbor.lan']) expect(problems({ HOST: host, ...paypal })).toHaveLength(1);
    for (const host of ['localhost', '127.0.0.2', '::1']) expect(problems({ HOST: host })).toEqual([]);
  });

  it('refuses the free test provider on every interface unless it is chosen, and marks it chosen then', () => {
    expect(problems({ HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:8080' })).toEqual([needsProvider('0.0.0.0')]);
    expect(problems({ HOST: '::', PUBLIC_URL: 'http://[::1]:8080' })).toEqual([needsProvider('::')]);
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:8080', PAYMENTS_PROVIDER: 'test' })).toMatchObject({
      paypal: undefined,
      testPaymentsChosen: true,
    });
    expect(loadConfig({}).testPaymentsChosen).toBe(false);
    expect(loadConfig({ ...paypal, HOST: '0.0.0.0', PUBLIC_URL: 'https://nodeharbor.example' }).testPaymentsChosen).toBe(false);
  });
});

describe('loadConfig', () => {
  it('gives the embedded defaults with no variables', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
      dataDir: './data',
      databaseUrl: undefined,
      registrationEnabled: false,
      devHostSuffixes: ['.lovableproject.com'],
      jwtExpiry: 3600,
    });
  });

  it('points links at the address the server listens on when PUBLIC_URL is unset, never at a request', () => {
    expect(loadConfig({ HOST: '127.0.0.1', PORT: '9000' }).publicUrl).toBe('http://127.0.0.1:9000');
    expect(loadConfig({ HOST: '::1' }).publicUrl).toBe('http://[::1]:8080');
    expect(loadConfig({ PORT: '80' }).publicUrl).toBe('http://localhost:80');
    expect(loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'https://nodeharbor.example', PAYMENTS_PROVIDER: 'test' }).publicUrl).toBe('https://nodeharbor.example');
  });

  it('configures the worker and the simulated provisioner, 0 seconds allowed for tests', () => {
    expect(loadConfig({})).toMatchObject({
      runWorker: true,
      workerConcurrency: { nodes: 4, upkeep: 2 },
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

  it('cuts slow clients off after REQUEST_TIMEOUT_SECONDS and caps connections per address', () => {
    expect(loadConfig({})).toMatchObject({ requestTimeoutSeconds: 30, maxConnectionsPerAddress: 64 });
    expect(loadConfig({ REQUEST_TIMEOUT_SECONDS: '2', MAX_CONNECTIONS_PER_ADDRESS: '500' })).toMatchObject({
      requestTimeoutSeconds: 2,
      maxConnectionsPerAddress: 500,
    });
    expect(problems({ REQUEST_TIMEOUT_SECONDS: '0', MAX_CONNECTIONS_PER_ADDRESS: 'lots' })).toEqual([
      'REQUEST_TIMEOUT_SECONDS must be a whole number from 1 to 600, got "0"',
      'MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to 100000, got "lots"',
    ]);
  });

  it('reads the metrics token and the shutdown grace, and refuses a short token or no grace', () => {
    // An orchestrator's usual stop timeout (Docker's 10 s): the process is gone before it kills it.
    expect(loadConfig({})).toMatchObject({ metricsToken: undefined, shutdownGraceSeconds: 10 });
    expect(loadConfig({ METRICS_TOKEN: 'a-token-of-16-ch', SHUTDOWN_GRACE_SECONDS: '5' })).toMatchObject({
      metricsToken: 'a-token-of-16-ch',
      shutdownGraceSeconds: 5,
    });
    expect(problems({ METRICS_TOKEN: 'short', SHUTDOWN_GRACE_SECONDS: '0' })).toEqual([
      'METRICS_TOKEN must be at least 16 characters long',
      'SHUTDOWN_GRACE_SECONDS must be a whole number from 1 to 3600, got "0"',
    ]);
  });

  it("reads a statement's client-side deadline, and refuses one the 8 s statement_timeout of a signed-in request would reach", () => {
    expect(loadConfig({})).toMatchObject({ databaseQueryTimeoutMs: 15_000 });
    expect(loadConfig({ DATABASE_QUERY_TIMEOUT_MS: '60000' })).toMatchObject({ databaseQueryTimeoutMs: 60_000 });
    expect(problems({ DATABASE_QUERY_TIMEOUT_MS: '8000' })).toEqual(['DATABASE_QUERY_TIMEOUT_MS must be a whole number from 10000 to 3600000, got "8000"']);
  });

  it('reads overrides', () => {
    const c = loadConfig({
      PORT: '9000',
      PUBLIC_URL: 'https://nodeharbor.example/',
      PAYMENTS_PROVIDER: 'test',
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
    expect(problems({ PORT: 'eighty', REGISTRATION_ENABLED: 'maybe', PUBLIC_URL: 'nodeharbor', SMTP_URL: 'http://x', JWT_SECRET: 'short' })).toEqual([
      'PORT must be a whole number from 0 to 65535, got "eighty"',
      `PUBLIC_URL must be a http: or https: URL, got "${UNREADABLE_URL}"`,
      'JWT_SECRET must be at least 32 characters long',
      'REGISTRATION_ENABLED must be true or false, got "maybe"',
      'SMTP_URL must be a smtp: or smtps: URL, got "http://x"',
    ]);
  });

  it('never prints a database password back', () => {
    const [p] = problems({ DATABASE_URL: 'mysql://user:hunter2@db/x' });
    expect(p).toContain('mysql://user:***@db/x');
    expect(p).not.toContain('hunter2');
    // Issue 42, item 4: a password holding `@` or given as a parameter, and a URL that does not parse.
    for (const url of ['mysql://user:hun@ter2@db/x', 'mysql://user@db/x?password=hunter2', 'mysql://user:hun ter2@db/x']) {
      expect(problems({ DATABASE_URL: url })[0]).not.toMatch(/hun|ter2/);
    }
  });

  it('requires shared secrets when several processes share a PostgreSQL', () => {
    expect(problems({ DATABASE_URL: 'postgres://db/x' })).toEqual([
      'JWT_SECRET is required with DATABASE_URL, so that every server process signs and checks the same tokens',
      'ENCRYPTION_KEY is required with DATABASE_URL, so that every server process can read the stored API keys',
    ]);
  });

  it('takes ENCRYPTION_KEY_PREVIOUS only beside a different ENCRYPTION_KEY, and as long as a key', () => {
    const old = 'o'.repeat(32);
    expect(loadConfig({ ENCRYPTION_KEY: 'n'.repeat(32), ENCRYPTION_KEY_PREVIOUS: old })).toMatchObject({ encryptionKeyPrevious: old });
    expect(problems({ ENCRYPTION_KEY_PREVIOUS: old })).toEqual(['ENCRYPTION_KEY_PREVIOUS needs ENCRYPTION_KEY, the new key that replaces it']);
    expect(problems({ ENCRYPTION_KEY: old, ENCRYPTION_KEY_PREVIOUS: old })).toEqual(['ENCRYPTION_KEY_PREVIOUS must differ from ENCRYPTION_KEY']);
    expect(problems({ ENCRYPTION_KEY: old, ENCRYPTION_KEY_PREVIOUS: 'short' })).toEqual(['ENCRYPTION_KEY_PREVIOUS must be at least 32 characters long']);
  });
});

describe('loadConfig: nodes', () => {
  it('runs the simulated provisioner by default, and reads the Docker variables as the Docker CLI does', () => {
    expect(loadConfig({})).toMatchObject({
      provisioner: 'simulated',
      docker: { host: undefined, tlsVerify: false, certPath: undefined, configDir: undefined },
      nodes: { images: {}, installTimeoutSeconds: 600, settleSeconds: 10, monitorIntervalSeconds: 30, downAlertMinutes: 10, alertsPerHour: 5 },
      reconcileIntervalSeconds: 60,
      simulatedNodeFaults: 0,
    });
    const c = loadConfig({
      PROVISIONER: 'docker',
      DOCKER_HOST: 'tcp://swarm.example:2376',
      DOCKER_TLS_VERIFY: '1',
      DOCKER_CERT_PATH: '/etc/nodeharbor/docker',
      DOCKER_CONFIG: '/etc/nodeharbor/docker-config',
      NODE_IMAGES: '{"TOWNSTAR":"registry.example.com/townstar-node:1.4"}',
      INSTALL_TIMEOUT_SECONDS: '120',
      INSTALL_SETTLE_SECONDS: '0',
      RECONCILE_INTERVAL_SECONDS: '5',
    });
    expect(c).toMatchObject({
      provisioner: 'docker',
      docker: { host: 'tcp://swarm.example:2376', tlsVerify: true, certPath: '/etc/nodeharbor/docker', configDir: '/etc/nodeharbor/docker-config' },
      nodes: { images: { TOWNSTAR: 'registry.example.com/townstar-node:1.4' }, installTimeoutSeconds: 120, settleSeconds: 0 },
      reconcileIntervalSeconds: 5,
    });
  });

  it('refuses an unknown provisioner, a DOCKER_HOST it cannot use and NODE_IMAGES that is not a map of codes to images, one line each', () => {
    expect(problems({ PROVISIONER: 'kubernetes', DOCKER_HOST: 'ssh://me@host' })).toEqual([
      'PROVISIONER must be simulated or docker, got "kubernetes"',
      'DOCKER_HOST must be unix:///path/to/docker.sock or tcp://host:port, got "ssh://me@host"',
    ]);
    const bad = ['[1]', '{"TOWNSTAR":42}', '{"townstar":"x:1"}', '{"TOWNSTAR":"Bad Image"}', 'not json'];
    for (const NODE_IMAGES of bad) {
      expect(problems({ NODE_IMAGES })).toEqual([
        `NODE_IMAGES must be a JSON map from product codes to image names, like {"TOWNSTAR":"registry.example.com/townstar-node:1"}, got '${NODE_IMAGES}'`,
      ]);
    }
    expect(problems({ INSTALL_TIMEOUT_SECONDS: '1' })).toEqual(['INSTALL_TIMEOUT_SECONDS must be a whole number from 5 to 86400, got "1"']);
  });

  it('keeps an unrenewed service suspended for SUSPENSION_DAYS, 14 by default, 1 to 365', () => {
    expect(loadConfig({}).suspensionDays).toBe(14);
    expect(loadConfig({ SUSPENSION_DAYS: '30' }).suspensionDays).toBe(30);
    expect(problems({ SUSPENSION_DAYS: '0' })).toEqual(['SUSPENSION_DAYS must be a whole number from 1 to 365, got "0"']);
  });

  it('names the seller of receipts from BILLING_*, NodeHarbor by default, with \\n as a line break', () => {
    expect(loadConfig({}).seller).toEqual({ name: 'NodeHarbor', address: null, taxId: null });
    expect(loadConfig({ BILLING_COMPANY_NAME: ' Harbour Ltd ', BILLING_ADDRESS: '1 Quay\\nPort Town', BILLING_TAX_ID: 'GB123' }).seller).toEqual({
      name: 'Harbour Ltd',
      address: '1 Quay\nPort Town',
      taxId: 'GB123',
    });
    expect(problems({ BILLING_COMPANY_NAME: 'x'.repeat(201), BILLING_ADDRESS: 'y'.repeat(501), BILLING_TAX_ID: 'z'.repeat(51) })).toEqual([
      'BILLING_COMPANY_NAME must be at most 200 characters',
      'BILLING_ADDRESS must be at most 500 characters',
      'BILLING_TAX_ID must be at most 50 characters',
    ]);
  });

  it('reads how the nodes are watched, and refuses an interval that would make every sample stale', () => {
    const c = loadConfig({ NODE_MONITOR_INTERVAL_SECONDS: '15', NODE_DOWN_ALERT_MINUTES: '3', NODE_ALERTS_PER_HOUR: '20', SIMULATED_NODE_FAULTS: '5' });
    expect(c).toMatchObject({ nodes: { monitorIntervalSeconds: 15, downAlertMinutes: 3, alertsPerHour: 20 }, simulatedNodeFaults: 5 });
    expect(problems({ NODE_MONITOR_INTERVAL_SECONDS: '300', SIMULATED_NODE_FAULTS: '101' })).toEqual([
      'NODE_MONITOR_INTERVAL_SECONDS must be a whole number from 1 to 120, got "300"',
      'SIMULATED_NODE_FAULTS must be a whole number from 0 to 100, got "101"',
    ]);
  });
});

describe('loadConfig: machines of their own (issue 35)', () => {
  const token = 'hcloud-token-0123456789abcdef';

  it('has no machine provider by default, and reads Hetzner with its defaults and lists', () => {
    expect(loadConfig({}).machines).toBeUndefined();
    expect(
      loadConfig({
        MACHINE_PROVIDER: 'hetzner',
        HCLOUD_TOKEN: token,
        MACHINE_SSH_KEYS: 'ops, backup ,',
        MACHINE_FIREWALLS: 'nodes',
        GALA_EULA_ACCEPTED: 'true',
      }).machines,
    ).toEqual({
      provider: 'hetzner',
      token,
      endpoint: 'https://api.hetzner.cloud/v1',
      sshKeys: ['ops', 'backup'],
      firewalls: ['nodes'],
      galaDownloadUrl: 'https://links.gala.com/DownloadLinuxNode',
      galaSha256: undefined,
      galaEulaAccepted: true,
      heartbeatSeconds: 30,
    });
    expect(
      loadConfig({ MACHINE_PROVIDER: 'hetzner', HCLOUD_TOKEN: token, HCLOUD_ENDPOINT: 'http://127.0.0.1:4010/v1', GALA_NODE_SHA256: 'AB'.repeat(32) }).machines,
    ).toMatchObject({ endpoint: 'http://127.0.0.1:4010/v1', galaSha256: 'ab'.repeat(32), galaEulaAccepted: false });
  });

  it('refuses a provider without its token, a token without a provider, and a token sent in clear text off this machine, one line each, never the token', () => {
    expect(problems({ MACHINE_PROVIDER: 'aws' })).toEqual(['MACHINE_PROVIDER must be hetzner, got "aws"']);
    expect(problems({ MACHINE_PROVIDER: 'hetzner' })).toEqual([
      'MACHINE_PROVIDER=hetzner needs HCLOUD_TOKEN, an API token of the Hetzner Cloud project (Read & Write)',
    ]);
    expect(problems({ HCLOUD_TOKEN: token })).toEqual(['HCLOUD_TOKEN is set, but MACHINE_PROVIDER is not: set MACHINE_PROVIDER=hetzner to use it']);
    expect(problems({ MACHINE_PROVIDER: 'hetzner', HCLOUD_TOKEN: 'short' })).toEqual(['HCLOUD_TOKEN must be at least 16 characters long']);
    expect(problems({ MACHINE_PROVIDER: 'hetzner', HCLOUD_TOKEN: token, HCLOUD_ENDPOINT: 'http://cloud.example/v1' })).toEqual([
      'HCLOUD_ENDPOINT must be an https URL, or http on a loopback address, got "http://cloud.example/v1"',
    ]);
    expect(problems({ MACHINE_PROVIDER: 'hetzner', HCLOUD_TOKEN: token, GALA_NODE_DOWNLOAD_URL: 'http://links.example/gala' })).toEqual([
      'GALA_NODE_DOWNLOAD_URL must be an https URL, or http on a loopback address, got "http://links.example/gala"',
    ]);
    expect(problems({ MACHINE_PROVIDER: 'hetzner', HCLOUD_TOKEN: token, PUBLIC_URL: 'http://nodes.example', PAYMENTS_PROVIDER: 'test' })).toEqual([
      'MACHINE_PROVIDER needs PUBLIC_URL to be an https URL, got "http://nodes.example": the machines\' agents fetch the customers\' keys from it',
    ]);
    expect(problems({ GALA_NODE_SHA256: 'xyz', MACHINE_HEARTBEAT_SECONDS: '0' })).toEqual([
      'GALA_NODE_SHA256 must be 64 hexadecimal digits',
      'MACHINE_HEARTBEAT_SECONDS must be a whole number from 1 to 300, got "0"',
    ]);
  });

  it('runs Swarm unless SWARM=off, which needs a machine provider in docker mode', () => {
    expect(loadConfig({}).swarm).toBe(true);
    expect(loadConfig({ SWARM: 'on' }).swarm).toBe(true);
    expect(loadConfig({ PROVISIONER: 'docker', SWARM: 'off', MACHINE_PROVIDER: 'hetzner', HCLOUD_TOKEN: token }).swarm).toBe(false);
    expect(problems({ SWARM: 'no' })).toEqual(['SWARM must be on or off, got "no"']);
    expect(problems({ PROVISIONER: 'docker', SWARM: 'off' })).toEqual([
      'SWARM=off needs MACHINE_PROVIDER: with neither, PROVISIONER=docker has nowhere to run nodes',
    ]);
  });
});

describe('loadConfig: REST_TX_END', () => {
  it('commits by default, and takes the four values of PostgREST db-tx-end', () => {
    expect(loadConfig({}).restTxEnd).toBe('commit');
    for (const v of ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override']) expect(loadConfig({ REST_TX_END: v }).restTxEnd).toBe(v);
  });

  it('refuses anything else, in one line', () => {
    expect(problems({ REST_TX_END: 'Rollback' })).toEqual([
      'REST_TX_END must be commit, commit-allow-override, rollback, rollback-allow-override, got "Rollback"',
    ]);
  });
});

describe('loadConfig: TRUST_PROXY', () => {
  it('trusts no proxy by default, one for true, a count, or addresses and ranges as proxy-addr reads them', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toEqual({ addresses: ['10.0.0.0/8', 'loopback'] });
  });

  it('refuses what it cannot read, in one line', () => {
    expect(problems({ TRUST_PROXY: 'the load balancer' })).toEqual([
      'TRUST_PROXY must be false, true (one proxy), a number of proxies, or their addresses or CIDR ranges separated by commas, got "the load balancer"',
    ]);
  });
});

describe('loadConfig: secrets from files (NAME_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const jwt = 'j'.repeat(32);
  const key = 'k'.repeat(32);

  it('reads each secret from its file, without the trailing line break', () => {
    const config = loadConfig({
      DATABASE_URL_FILE: file('database_url', 'postgres://nodeharbor:pw@db:5432/nodeharbor\n'),
      JWT_SECRET_FILE: file('jwt_secret', `${jwt}\r\n`),
      ENCRYPTION_KEY_FILE: file('encryption_key', key),
    });
    expect(config).toMatchObject({ databaseUrl: 'postgres://nodeharbor:pw@db:5432/nodeharbor', jwtSecret: jwt, encryptionKey: key });
  });

  it('puts DATABASE_PASSWORD into DATABASE_URL, encoded, so one file serves PostgreSQL and NodeHarbor', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://nodeharbor@db:5432/nodeharbor',
      DATABASE_PASSWORD_FILE: file('db_password', 'p@ss:w%rd/1\n'),
      JWT_SECRET: jwt,
      ENCRYPTION_KEY: key,
    });
    expect(config.databaseUrl).toBe('postgres://nodeharbor:p%40ss%3Aw%25rd%2F1@db:5432/nodeharbor');
    expect(decodeURIComponent(new URL(config.databaseUrl!).password)).toBe('p@ss:w%rd/1');
    expect(problems({ DATABASE_PASSWORD: 'pw' })).toEqual(['DATABASE_PASSWORD needs DATABASE_URL, the database it opens']);
    expect(problems({ DATABASE_URL: 'postgres://u:other@db/x', DATABASE_PASSWORD: 'pw', JWT_SECRET: jwt, ENCRYPTION_KEY: key })).toEqual([
      'DATABASE_PASSWORD is set, but DATABASE_URL has a password too: keep one',
    ]);
  });

  it('refuses a missing or empty file, and a secret given both ways, each on its own line', () => {
    const missing = join(dir, 'missing');
    expect(
      problems({ JWT_SECRET_FILE: missing, ENCRYPTION_KEY_FILE: file('empty', '\n'), ENCRYPTION_KEY_PREVIOUS: 'x', ENCRYPTION_KEY_PREVIOUS_FILE: missing }),
    ).toEqual([
      `JWT_SECRET_FILE names ${missing}, which cannot be read (ENOENT)`,
      `ENCRYPTION_KEY_FILE names ${join(dir, 'empty')}, which is empty`,
      'ENCRYPTION_KEY_PREVIOUS and ENCRYPTION_KEY_PREVIOUS_FILE are both set: keep one',
      'ENCRYPTION_KEY_PREVIOUS must be at least 32 characters long',
    ]);
  });

  it('checks a secret read from a file like one from the environment', () => {
    expect(problems({ JWT_SECRET_FILE: file('short', 'short\n') })).toEqual(['JWT_SECRET must be at least 32 characters long']);
  });
});
