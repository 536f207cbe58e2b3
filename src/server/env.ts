import { HEARTBEAT_SECONDS } from './provisioning/machines/machine-tokens';
import { readFileSync } from 'node:fs';
import { isIP, isIPv6 } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { SUSPENSION_DAYS } from '../shared/constants';
import { SELLER_NAME, type Seller } from '../shared/billing-documents';
import { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_POOL_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS } from './db/postgres';
import { DEFAULT_EMBEDDED_STATEMENT_TIMEOUT_MS } from './db/statement-watchdog';
import { parseTrustProxy, type TrustProxy } from './http/client-ip';
import type { NodeSettings } from './provisioning/node-settings';
import { isAllowListed, parseAllowList } from './outbound/address-policy';
import { redactUrl } from './redact-url';
import { TX_ENDS, type TxEnd } from './rest/preferences';

export type DockerEngineConfig = {
  host: string | undefined;
  tlsVerify: boolean;
  certPath: string | undefined;
  /** Where `docker login` keeps registry credentials (DOCKER_CONFIG, default ~/.docker). */
  configDir: string | undefined;
};

/** Thrown when one or more environment variables are invalid; the message lists each. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const bool = (name: string, fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const s = v.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(s)) return true;
      if (['false', '0', 'no', 'off'].includes(s)) return false;
      ctx.addIssue({ code: 'custom', message: `${name} must be true or false, got "${v}"` });
      return z.NEVER;
    });

const int = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max}, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

const url = (name: string, protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      try {
        const u = new URL(v);
        if (!protocols.includes(u.protocol)) throw new Error('protocol');
        return v.replace(/\/+$/, '');
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name} must be a ${protocols.join(' or ')} URL, got "${redactUrl(v)}"` });
        return z.NEVER;
      }
    });

const secret = (name: string, minLength: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (v.length < minLength) {
        ctx.addIssue({ code: 'custom', message: `${name} must be at least ${minLength} characters long` });
        return z.NEVER;
      }
      return v;
    });

/** Free text up to `max` characters; "\\n" in it is a line break, as one-line .env files need. */
const text = (name: string, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const t = v?.replaceAll('\\n', '\n').trim();
      if (!t) return undefined;
      if (t.length > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be at most ${max} characters` });
        return z.NEVER;
      }
      return t;
    });

const email = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (!z.email().safeParse(v).success) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an e-mail address, got "${v}"` });
        return z.NEVER;
      }
      return v.toLowerCase();
    });

/** A product code (base_product_code) and an image reference as Docker names them. */
const PRODUCT_CODE = /^[A-Z0-9_]{1,64}$/;
const IMAGE_NAME = /^[a-z0-9][a-z0-9._/:@-]{0,254}$/;

/** NODE_IMAGES' JSON, or undefined when it is not an object of product codes to image names. */
function parseNodeImages(v: string): Record<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed);
  const valid = entries.every(([code, image]) => PRODUCT_CODE.test(code) && typeof image === 'string' && IMAGE_NAME.test(image));
  return valid ? (Object.fromEntries(entries) as Record<string, string>) : undefined;
}

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).optional().default('production'),
  // Unset: loopback, unless PUBLIC_URL is a public address (loadConfig).
  HOST: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined),
  PORT: int('PORT', 8080, 0, 65535),
  PUBLIC_URL: url('PUBLIC_URL', ['http:', 'https:']),
  DATA_DIR: z.string().optional().default('./data'),
  DATABASE_URL: url('DATABASE_URL', ['postgres:', 'postgresql:']),
  DATABASE_PASSWORD: z.string().optional(),
  DATABASE_POOL_SIZE: int('DATABASE_POOL_SIZE', 20, 1, 500),
  DATABASE_POOL_TIMEOUT_MS: int('DATABASE_POOL_TIMEOUT_MS', DEFAULT_POOL_TIMEOUT_MS, 100, 60_000),
  DATABASE_LOCK_TIMEOUT_MS: int('DATABASE_LOCK_TIMEOUT_MS', DEFAULT_LOCK_TIMEOUT_MS, 100, 60_000),
  EMBEDDED_STATEMENT_TIMEOUT_MS: int('EMBEDDED_STATEMENT_TIMEOUT_MS', DEFAULT_EMBEDDED_STATEMENT_TIMEOUT_MS, 10, 60_000),
  // 10 s at least: the authenticated role's 8 s statement_timeout (rest/execute.ts) answers 504 first.
  DATABASE_QUERY_TIMEOUT_MS: int('DATABASE_QUERY_TIMEOUT_MS', DEFAULT_QUERY_TIMEOUT_MS, 10_000, 3_600_000),
  // 0 when unset: bootstrap derives it from the database (fair-share.ts).
  DATABASE_CLIENT_SLOTS: int('DATABASE_CLIENT_SLOTS', 0, 1, 500),
  JWT_SECRET: secret('JWT_SECRET', 32),
  JWT_EXPIRY: int('JWT_EXPIRY', 3600, 300, 604800),
  REFRESH_TOKEN_REUSE_INTERVAL: int('REFRESH_TOKEN_REUSE_INTERVAL', 10, 0, 3600),
  ENCRYPTION_KEY: secret('ENCRYPTION_KEY', 32),
  ENCRYPTION_KEY_PREVIOUS: secret('ENCRYPTION_KEY_PREVIOUS', 32),
  REGISTRATION_ENABLED: bool('REGISTRATION_ENABLED', false),
  DEV_HOST_SUFFIXES: z.string().optional().default('.lovableproject.com'),
  SMTP_URL: url('SMTP_URL', ['smtp:', 'smtps:']),
  MAIL_FROM: z.string().optional().default('NodeHarbor <no-reply@nodeharbor.local>'),
  CONTACT_TO: email('CONTACT_TO'),
  STATUS_URL: url('STATUS_URL', ['http:', 'https:']),
  STATUS_CACHE_SECONDS: int('STATUS_CACHE_SECONDS', 30, 0, 3600),
  STATUS_MIN_NODES: int('STATUS_MIN_NODES', 5, 1, 1_000_000),
  ADMIN_EMAIL: email('ADMIN_EMAIL'),
  BODY_LIMIT_BYTES: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 50 * 1024 * 1024),
  REQUEST_TIMEOUT_SECONDS: int('REQUEST_TIMEOUT_SECONDS', 30, 1, 600),
  MAX_CONNECTIONS_PER_ADDRESS: int('MAX_CONNECTIONS_PER_ADDRESS', 64, 1, 100_000),
  RATE_LIMITS_ENABLED: bool('RATE_LIMITS_ENABLED', true),
  REST_AGGREGATES: bool('REST_AGGREGATES', false),
  REST_TX_END: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 'commit' as const;
      if ((TX_ENDS as readonly string[]).includes(v)) return v as TxEnd;
      ctx.addIssue({ code: 'custom', message: `REST_TX_END must be ${TX_ENDS.join(', ')}, got "${v}"` });
      return z.NEVER;
    }),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const trust = parseTrustProxy(v ?? '');
      if (trust !== undefined) return trust;
      ctx.addIssue({
        code: 'custom',
        message: `TRUST_PROXY must be false, true (one proxy), a number of proxies, or their addresses or CIDR ranges separated by commas, got "${v}"`,
      });
      return z.NEVER;
    }),
  // 0 when unset: one HTTP process per core (main.ts).
  WEB_CONCURRENCY: int('WEB_CONCURRENCY', 0, 1, 256),
  RUN_WORKER: bool('RUN_WORKER', true),
  WORKER_CONCURRENCY: int('WORKER_CONCURRENCY', 4, 1, 100),
  WORKER_UPKEEP_CONCURRENCY: int('WORKER_UPKEEP_CONCURRENCY', 2, 1, 100),
  WORKER_POLL_MS: int('WORKER_POLL_MS', 1000, 10, 60_000),
  JOB_LEASE_SECONDS: int('JOB_LEASE_SECONDS', 60, 1, 3600),
  PROVISION_INSTALL_SECONDS: int('PROVISION_INSTALL_SECONDS', 20, 0, 3600),
  PROVISION_DELETE_SECONDS: int('PROVISION_DELETE_SECONDS', 10, 0, 3600),
  PROVISIONER: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 'simulated' as const;
      if (v === 'simulated' || v === 'docker') return v;
      ctx.addIssue({ code: 'custom', message: `PROVISIONER must be simulated or docker, got "${v}"` });
      return z.NEVER;
    }),
  DOCKER_HOST: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (/^unix:\/\/\/.+/.test(v) || /^tcp:\/\/[^/]+:\d+\/?$/.test(v)) return v;
      ctx.addIssue({ code: 'custom', message: `DOCKER_HOST must be unix:///path/to/docker.sock or tcp://host:port, got "${redactUrl(v)}"` });
      return z.NEVER;
    }),
  DOCKER_TLS_VERIFY: bool('DOCKER_TLS_VERIFY', false),
  DOCKER_CERT_PATH: z.string().optional(),
  DOCKER_CONFIG: z.string().optional(),
  SWARM: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '' || v === 'on') return true;
      if (v === 'off') return false;
      ctx.addIssue({ code: 'custom', message: `SWARM must be on or off, got "${v}"` });
      return z.NEVER;
    }),
  MACHINE_PROVIDER: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (v === 'hetzner') return v;
      ctx.addIssue({ code: 'custom', message: `MACHINE_PROVIDER must be hetzner, got "${v}"` });
      return z.NEVER;
    }),
  HCLOUD_TOKEN: secret('HCLOUD_TOKEN', 16),
  HCLOUD_ENDPOINT: url('HCLOUD_ENDPOINT', ['http:', 'https:']),
  MACHINE_SSH_KEYS: z.string().optional(),
  MACHINE_FIREWALLS: z.string().optional(),
  GALA_NODE_DOWNLOAD_URL: url('GALA_NODE_DOWNLOAD_URL', ['http:', 'https:']),
  GALA_NODE_SHA256: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (/^[0-9a-f]{64}$/i.test(v)) return v.toLowerCase();
      ctx.addIssue({ code: 'custom', message: 'GALA_NODE_SHA256 must be 64 hexadecimal digits' });
      return z.NEVER;
    }),
  GALA_EULA_ACCEPTED: bool('GALA_EULA_ACCEPTED', false),
  MACHINE_HEARTBEAT_SECONDS: int('MACHINE_HEARTBEAT_SECONDS', HEARTBEAT_SECONDS, 1, 300),
  NODE_IMAGES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return {};
      const images = parseNodeImages(v);
      if (images) return images;
      ctx.addIssue({
        code: 'custom',
        message: `NODE_IMAGES must be a JSON map from product codes to image names, like {"TOWNSTAR":"registry.example.com/townstar-node:1"}, got '${v}'`,
      });
      return z.NEVER;
    }),
  INSTALL_TIMEOUT_SECONDS: int('INSTALL_TIMEOUT_SECONDS', 600, 5, 86_400),
  INSTALL_SETTLE_SECONDS: int('INSTALL_SETTLE_SECONDS', 10, 0, 600),
  // At most 365, as private.renew_service takes.
  SUSPENSION_DAYS: int('SUSPENSION_DAYS', SUSPENSION_DAYS, 1, 365),
  BILLING_COMPANY_NAME: text('BILLING_COMPANY_NAME', 200),
  BILLING_ADDRESS: text('BILLING_ADDRESS', 500),
  BILLING_TAX_ID: text('BILLING_TAX_ID', 50),
  RECONCILE_INTERVAL_SECONDS: int('RECONCILE_INTERVAL_SECONDS', 60, 1, 86_400),
  // At most 120: a sample older than five minutes reads as unknown (migration 0019).
  NODE_MONITOR_INTERVAL_SECONDS: int('NODE_MONITOR_INTERVAL_SECONDS', 30, 1, 120),
  NODE_DOWN_ALERT_MINUTES: int('NODE_DOWN_ALERT_MINUTES', 10, 1, 1440),
  NODE_ALERTS_PER_HOUR: int('NODE_ALERTS_PER_HOUR', 5, 1, 1000),
  SIMULATED_NODE_FAULTS: int('SIMULATED_NODE_FAULTS', 0, 0, 100),
  BACKUP_DIR: z.string().optional(),
  BACKUP_EVERY_HOURS: int('BACKUP_EVERY_HOURS', 24, 1, 8760),
  BACKUP_KEEP: int('BACKUP_KEEP', 7, 1, 10_000),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).optional().default('info'),
  METRICS_TOKEN: secret('METRICS_TOKEN', 16),
  // 10: Docker's default stop timeout, after which it kills the process.
  SHUTDOWN_GRACE_SECONDS: int('SHUTDOWN_GRACE_SECONDS', 10, 1, 3600),
  PAYMENTS_PROVIDER: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (v === 'test' || v === 'paypal') return v;
      ctx.addIssue({ code: 'custom', message: `PAYMENTS_PROVIDER must be test or paypal, got "${v}"` });
      return z.NEVER;
    }),
  PAYPAL_CLIENT_ID: z.string().optional(),
  PAYPAL_CLIENT_SECRET: z.string().optional(),
  PAYPAL_MODE: z.string().optional(),
  PAYPAL_WEBHOOK_ID: z.string().optional(),
  PAYPAL_API_URL: url('PAYPAL_API_URL', ['http:', 'https:']),
  PAYPAL_TIMEOUT_MS: int('PAYPAL_TIMEOUT_MS', 15_000, 100, 120_000),
  NOWPAYMENTS_API_KEY: z.string().optional(),
  NOWPAYMENTS_IPN_SECRET: z.string().optional(),
  NOWPAYMENTS_EMAIL: z.string().optional(),
  NOWPAYMENTS_PASSWORD: z.string().optional(),
  NOWPAYMENTS_API_URL: url('NOWPAYMENTS_API_URL', ['http:', 'https:']),
  NOWPAYMENTS_CHECKOUT_ORIGIN: url('NOWPAYMENTS_CHECKOUT_ORIGIN', ['http:', 'https:']),
  NOWPAYMENTS_TIMEOUT_MS: int('NOWPAYMENTS_TIMEOUT_MS', 15_000, 100, 120_000),
  TELEGRAM_BOT_TOKEN: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      // BotFather's form, <bot id>:<secret>; the value itself is never repeated in the message.
      if (/^\d{1,20}:[A-Za-z0-9_-]{30,100}$/.test(v)) return v;
      ctx.addIssue({ code: 'custom', message: 'TELEGRAM_BOT_TOKEN must be a bot token as BotFather gives it (123456789:ABC…)' });
      return z.NEVER;
    }),
  TELEGRAM_API_URL: url('TELEGRAM_API_URL', ['http:', 'https:']),
  DISCORD_API_ORIGIN: url('DISCORD_API_ORIGIN', ['http:', 'https:']).refine((v) => v === undefined || new URL(v).origin === v, {
    message: 'DISCORD_API_ORIGIN must be an origin only (scheme, host and port), like https://discord.com',
  }),
  OUTBOUND_ALLOW: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const entries = (v ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      try {
        parseAllowList(entries);
        return entries;
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `OUTBOUND_ALLOW must list hosts or host:port separated by commas: ${(e as Error).message}` });
        return z.NEVER;
      }
    }),
});

/** PayPal's REST hosts per PAYPAL_MODE. */
const PAYPAL_HOSTS = { sandbox: 'https://api-m.sandbox.paypal.com', live: 'https://api-m.paypal.com' } as const;

export type PayPalConfig = {
  clientId: string;
  clientSecret: string;
  mode: keyof typeof PAYPAL_HOSTS;
  webhookId: string;
  /** PayPal's REST host for the mode, or PAYPAL_API_URL (a local stand-in in tests). */
  apiUrl: string;
  timeoutMs: number;
};

/**
 * NOWPayments (decision 050): the API key and IPN secret from its dashboard, and the account's
 * e-mail and password, which listing an invoice's payments needs (POST /v1/auth).
 */
export type NowPaymentsConfig = {
  apiKey: string;
  ipnSecret: string;
  email: string;
  password: string;
  /** https://api.nowpayments.io/v1, or NOWPAYMENTS_API_URL (a local stand-in in tests). */
  apiUrl: string;
  /** Where its invoices are hosted: the only place the buyer is sent. */
  checkoutOrigin: string;
  timeoutMs: number;
};

export type Config = {
  env: 'development' | 'production' | 'test';
  /** The address to listen on: HOST, or loopback only unless PUBLIC_URL is a public address (decision 028). */
  host: string;
  port: number;
  /**
   * Where every link points (e-mails, payment return URLs) and the API address /config.json gives
   * the browser: PUBLIC_URL, or else the address the server listens on, never a request's Host header.
   */
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** How long a statement waits for a pooled connection, or for a new one to open (PostgreSQL). */
  databasePoolTimeoutMs: number;
  /** PostgreSQL's lock_timeout on every connection: a held row answers its callers fast. */
  databaseLockTimeoutMs: number;
  /**
   * How long one REST statement may run on the embedded database, where every other request
   * waits for it (statement-watchdog.ts); PostgreSQL runs them side by side under the roles' own.
   */
  embeddedStatementTimeoutMs: number;
  /** On PostgreSQL, how long a statement may go unanswered before its connection is destroyed (503). */
  databaseQueryTimeoutMs: number;
  /** Statements one signed-in user, or one address, runs at once (db/fair-share.ts); undefined: by the database. */
  databaseClientSlots: number | undefined;
  /** Undefined means: embedded mode generates one and keeps it in DATA_DIR. */
  jwtSecret: string | undefined;
  jwtExpiry: number;
  /** Seconds during which a just-rotated refresh token may be used again (concurrent tabs). */
  refreshTokenReuseInterval: number;
  encryptionKey: string | undefined;
  /** During a rotation: the key being replaced, still read, never written with (keys:reencrypt ends it). */
  encryptionKeyPrevious: string | undefined;
  registrationEnabled: boolean;
  devHostSuffixes: string[];
  smtpUrl: string | undefined;
  mailFrom: string;
  contactTo: string | undefined;
  statusUrl: string | undefined;
  /** The public status page (/status): how long its figures are served before they are read again, and the fewest nodes a day's figure stands for. */
  statusPage: { cacheSeconds: number; minNodes: number };
  adminEmail: string;
  bodyLimitBytes: number;
  /** Seconds a request's headers and body may take to arrive; a slower client is answered 408 and cut off. */
  requestTimeoutSeconds: number;
  /** Connections one client address (an IPv6 /64) may hold open at once; trusted proxies are not counted. */
  maxConnectionsPerAddress: number;
  rateLimitsEnabled: boolean;
  /** /rest/v1's aggregate functions in select (PostgREST's db-aggregates-enabled): off, as PostgREST. */
  restAggregates: boolean;
  /**
   * How a /rest/v1 request's transaction ends, PostgREST's db-tx-end: commit or rollback, and
   * whether `Prefer: tx` may change it (`-allow-override`). A `tx=rollback` that may not is refused.
   */
  restTxEnd: TxEnd;
  /** Trust X-Forwarded-For for the client address (behind a reverse proxy). */
  trustProxy: TrustProxy;
  /** HTTP processes on PostgreSQL (WEB_CONCURRENCY); 0: one per core. The embedded database always has one. */
  webConcurrency: number;
  runWorker: boolean;
  /** Jobs one worker runs at once in each lane (jobs/task.ts's Lane). */
  workerConcurrency: { nodes: number; upkeep: number };
  workerPollMs: number;
  /** Seconds a claimed job stays its worker's without a heartbeat (a killed worker's jobs wait this long). */
  jobLeaseSeconds: number;
  /** Which engine runs the nodes: the simulated one (the embedded default) or Docker Swarm. */
  provisioner: 'simulated' | 'docker';
  /** Durations of the simulated provisioner. */
  provisionInstallSeconds: number;
  provisionDeleteSeconds: number;
  /** The simulated driver's crashes and outages, in percent of running nodes per look (0: none). */
  simulatedNodeFaults: number;
  /** Where the Docker Engine is, as the Docker CLI reads DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH. */
  docker: DockerEngineConfig;
  /** Whether real nodes may run on Docker Swarm (SWARM); off: only machine products are sold, and no engine is needed. */
  swarm: boolean;
  /** The cloud provider of products whose nodes run on machines of their own (MACHINE_PROVIDER); undefined: none. */
  machines: MachinesConfig | undefined;
  nodes: NodeSettings;
  reconcileIntervalSeconds: number;
  /** Days a service the balance could not renew stays suspended before it is terminated. */
  suspensionDays: number;
  /** Who issues receipts and credit notes (BILLING_*); copied into each document as it is issued. */
  seller: Seller;
  /** Scheduled backups (BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP); undefined: none. */
  backups: { dir: string; everyHours: number; keep: number } | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** The bearer token /metrics asks for; undefined: /metrics answers this machine only (metrics/metrics-access.ts). */
  metricsToken: string | undefined;
  /** Seconds a SIGTERM gives the process to stop: in-flight requests and running jobs finish, or are cut short and handed back, within it (shutdown.ts). */
  shutdownGraceSeconds: number;
  /** Undefined means: the built-in test provider, whose approval page is our own (see paymentsConfig). */
  paypal: PayPalConfig | undefined;
  /** Crypto top-ups, when NOWPAYMENTS_* is set. */
  nowPayments: NowPaymentsConfig | undefined;
  /** PAYMENTS_PROVIDER=test: the free test provider on purpose, announced on every page and at each start. */
  testPaymentsChosen: boolean;
  /** The notification channels' outside services and the outbound guard's exceptions (decision 043); createChannelSender takes it whole. */
  outbound: OutboundConfig;
};

export type OutboundConfig = {
  /** OUTBOUND_ALLOW: hosts (`host` or `host:port`) requests may reach although private or loopback, and over http: tests' stand-ins only. */
  allow: string[];
  /** Discord's origin (DISCORD_API_ORIGIN): a Discord webhook URL must be `${origin}/api/webhooks/<id>/<token>`. */
  discordApiOrigin: string;
  /** The Telegram Bot API (TELEGRAM_API_URL). */
  telegramApiUrl: string;
  /** TELEGRAM_BOT_TOKEN; undefined: no Telegram channel. */
  telegramBotToken: string | undefined;
};

/** The secrets that NAME_FILE may give instead of NAME: Docker's and Swarm's secrets are files. */
const FILE_VARIABLES = [
  'DATABASE_URL',
  'DATABASE_PASSWORD',
  'JWT_SECRET',
  'ENCRYPTION_KEY',
  'ENCRYPTION_KEY_PREVIOUS',
  'SMTP_URL',
  'PAYPAL_CLIENT_SECRET',
  'HCLOUD_TOKEN',
  'TELEGRAM_BOT_TOKEN',
] as const;

/** env with each NAME_FILE read into NAME (without its trailing line break); a problem for each file that cannot be. */
function readSecretFiles(env: Record<string, string | undefined>, problems: string[]): Record<string, string | undefined> {
  const out = { ...env };
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`${name} and ${name}_FILE are both set: keep one`);
      continue;
    }
    let value: string;
    try {
      value = readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
    } catch (e) {
      problems.push(`${name}_FILE names ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
      continue;
    }
    // An empty file would silently mean "unset": for DATABASE_URL, the embedded database instead.
    if (value === '') problems.push(`${name}_FILE names ${file}, which is empty`);
    else out[name] = value;
  }
  return out;
}

/** DATABASE_URL with DATABASE_PASSWORD put in, so that one secret file serves PostgreSQL and us. */
function withPassword(databaseUrl: string | undefined, password: string | undefined, problems: string[]): string | undefined {
  if (password === undefined || password === '') return databaseUrl;
  if (!databaseUrl) {
    problems.push('DATABASE_PASSWORD needs DATABASE_URL, the database it opens');
    return undefined;
  }
  const u = new URL(databaseUrl);
  if (u.password) {
    problems.push('DATABASE_PASSWORD is set, but DATABASE_URL has a password too: keep one');
    return databaseUrl;
  }
  // Encoded first: the setter leaves % alone, which pg would then decode.
  u.password = encodeURIComponent(password);
  return u.toString();
}

/**
 * The only reader of process.env. Every bad variable is reported at once, each with its own line.
 * NAME_FILE reads a secret (FILE_VARIABLES) from a file, as Docker's secrets are given.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const parsed = schema.safeParse(readSecretFiles(env, problems));
  if (!parsed.success) {
    throw new ConfigError([...problems, ...parsed.error.issues.map((i) => (i.code === 'custom' ? i.message : `${i.path.join('.')}: ${i.message}`))]);
  }
  const e = parsed.data;
  const databaseUrl = withPassword(e.DATABASE_URL, e.DATABASE_PASSWORD, problems);
  if (e.DATABASE_URL && !e.JWT_SECRET) {
    problems.push('JWT_SECRET is required with DATABASE_URL, so that every server process signs and checks the same tokens');
  }
  if (e.DATABASE_URL && !e.ENCRYPTION_KEY) {
    problems.push('ENCRYPTION_KEY is required with DATABASE_URL, so that every server process can read the stored API keys');
  }
  if (e.ENCRYPTION_KEY_PREVIOUS && !e.ENCRYPTION_KEY) {
    problems.push('ENCRYPTION_KEY_PREVIOUS needs ENCRYPTION_KEY, the new key that replaces it');
  }
  if (e.ENCRYPTION_KEY_PREVIOUS && e.ENCRYPTION_KEY_PREVIOUS === e.ENCRYPTION_KEY) {
    problems.push('ENCRYPTION_KEY_PREVIOUS must differ from ENCRYPTION_KEY');
  }
  const host = e.HOST ?? (e.PUBLIC_URL && !isLoopbackUrl(e.PUBLIC_URL) ? '0.0.0.0' : '127.0.0.1');
  // Without PUBLIC_URL links and the browser's API address name the listening address, which
  // 0.0.0.0 is not, and which another machine could not use if it were loopback.
  if (!isLoopbackHost(host) && !e.PUBLIC_URL) {
    problems.push(`PUBLIC_URL must be set when HOST (${host}) is not a loopback address: it is the address links and the browser use`);
  }
  const paypal = paymentsConfig(e, host, problems);
  const nowPayments = nowPaymentsConfig(e, problems);
  const machines = machinesConfig(e, problems);
  outboundProblems(e, problems);
  if (!e.SWARM && !machines && e.PROVISIONER === 'docker') {
    problems.push('SWARM=off needs MACHINE_PROVIDER: with neither, PROVISIONER=docker has nowhere to run nodes');
  }
  if (problems.length) throw new ConfigError(problems);
  const suffixes = e.DEV_HOST_SUFFIXES.split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return {
    env: e.NODE_ENV,
    host,
    port: e.PORT,
    // With HOST unset, localhost: the start line names it so, and a browser opens it.
    publicUrl: e.PUBLIC_URL ?? ownAddress(e.HOST ?? 'localhost', e.PORT),
    dataDir: e.DATA_DIR,
    databaseUrl,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databasePoolTimeoutMs: e.DATABASE_POOL_TIMEOUT_MS,
    databaseLockTimeoutMs: e.DATABASE_LOCK_TIMEOUT_MS,
    embeddedStatementTimeoutMs: e.EMBEDDED_STATEMENT_TIMEOUT_MS,
    databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    databaseClientSlots: e.DATABASE_CLIENT_SLOTS || undefined,
    jwtSecret: e.JWT_SECRET,
    jwtExpiry: e.JWT_EXPIRY,
    refreshTokenReuseInterval: e.REFRESH_TOKEN_REUSE_INTERVAL,
    encryptionKey: e.ENCRYPTION_KEY,
    encryptionKeyPrevious: e.ENCRYPTION_KEY_PREVIOUS,
    registrationEnabled: e.REGISTRATION_ENABLED,
    devHostSuffixes: suffixes,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    contactTo: e.CONTACT_TO,
    statusUrl: e.STATUS_URL,
    statusPage: { cacheSeconds: e.STATUS_CACHE_SECONDS, minNodes: e.STATUS_MIN_NODES },
    adminEmail: e.ADMIN_EMAIL ?? 'admin@nodeharbor.local',
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    requestTimeoutSeconds: e.REQUEST_TIMEOUT_SECONDS,
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    rateLimitsEnabled: e.RATE_LIMITS_ENABLED,
    restAggregates: e.REST_AGGREGATES,
    restTxEnd: e.REST_TX_END,
    trustProxy: e.TRUST_PROXY,
    webConcurrency: e.WEB_CONCURRENCY,
    runWorker: e.RUN_WORKER,
    workerConcurrency: { nodes: e.WORKER_CONCURRENCY, upkeep: e.WORKER_UPKEEP_CONCURRENCY },
    workerPollMs: e.WORKER_POLL_MS,
    jobLeaseSeconds: e.JOB_LEASE_SECONDS,
    provisioner: e.PROVISIONER,
    provisionInstallSeconds: e.PROVISION_INSTALL_SECONDS,
    provisionDeleteSeconds: e.PROVISION_DELETE_SECONDS,
    docker: {
      host: e.DOCKER_HOST,
      tlsVerify: e.DOCKER_TLS_VERIFY,
      certPath: e.DOCKER_CERT_PATH || undefined,
      configDir: e.DOCKER_CONFIG || undefined,
    },
    swarm: e.SWARM,
    machines,
    simulatedNodeFaults: e.SIMULATED_NODE_FAULTS,
    nodes: {
      images: e.NODE_IMAGES,
      installTimeoutSeconds: e.INSTALL_TIMEOUT_SECONDS,
      settleSeconds: e.INSTALL_SETTLE_SECONDS,
      monitorIntervalSeconds: e.NODE_MONITOR_INTERVAL_SECONDS,
      downAlertMinutes: e.NODE_DOWN_ALERT_MINUTES,
      alertsPerHour: e.NODE_ALERTS_PER_HOUR,
    },
    reconcileIntervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
    suspensionDays: e.SUSPENSION_DAYS,
    seller: { name: e.BILLING_COMPANY_NAME ?? SELLER_NAME, address: e.BILLING_ADDRESS ?? null, taxId: e.BILLING_TAX_ID ?? null },
    backups: e.BACKUP_DIR?.trim() ? { dir: e.BACKUP_DIR.trim(), everyHours: e.BACKUP_EVERY_HOURS, keep: e.BACKUP_KEEP } : undefined,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    paypal,
    nowPayments,
    testPaymentsChosen: e.PAYMENTS_PROVIDER === 'test',
    outbound: {
      allow: e.OUTBOUND_ALLOW,
      discordApiOrigin: e.DISCORD_API_ORIGIN ?? 'https://discord.com',
      telegramApiUrl: e.TELEGRAM_API_URL ?? 'https://api.telegram.org',
      telegramBotToken: e.TELEGRAM_BOT_TOKEN,
    },
  };
}

/** http://HOST:PORT, the loopback address the server listens on (PUBLIC_URL is required for any other). */
function ownAddress(host: string, port: number): string {
  return `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

const isLoopbackAddress = proxyaddr.compile('loopback');

/** localhost, 127.0.0.0/8 or ::1: an address only this machine reaches. */
function isLoopbackHost(host: string): boolean {
  return host.toLowerCase() === 'localhost' || (isIP(host) !== 0 && isLoopbackAddress(host, 0));
}

function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname.replace(/^\[(.*)\]$/, '$1'));
}

/**
 * PayPal's settings, or undefined for the built-in test provider, whose buyers approve their own
 * payments. The test provider is chosen on purpose (PAYMENTS_PROVIDER=test), or by default only on
 * a site that no one else can reach: every listening address and PUBLIC_URL loopback. Any other
 * site must say which provider takes its payments. PayPal is configured entirely or not at all:
 * half a configuration would silently fall back to the free test provider. The mode is never
 * guessed, for the same reason.
 */
export type MachinesConfig = {
  provider: 'hetzner';
  token: string;
  /** Hetzner Cloud's API, or HCLOUD_ENDPOINT (a local stand-in in tests and the demo). */
  endpoint: string;
  sshKeys: string[];
  firewalls: string[];
  /** Where a new machine downloads Gala's node software, and its SHA-256 when the operator pinned one. */
  galaDownloadUrl: string;
  galaSha256: string | undefined;
  /** The operator accepted Gala's EULA for its machines: without it, a machine stops before installing Gala's software. */
  galaEulaAccepted: boolean;
  /** How often each machine's agent reports; two missed reports and its node is offline. */
  heartbeatSeconds: number;
};

const HETZNER_API = 'https://api.hetzner.cloud/v1';
/** Gala's own link to its Linux node software, as its guide and install scripts use it. */
const GALA_DOWNLOAD = 'https://links.gala.com/DownloadLinuxNode';

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The machine provider's settings, or undefined without MACHINE_PROVIDER; a problem for each missing or unsafe one. */
function machinesConfig(e: z.infer<typeof schema>, problems: string[]): MachinesConfig | undefined {
  if (!e.MACHINE_PROVIDER) {
    if (e.HCLOUD_TOKEN) problems.push('HCLOUD_TOKEN is set, but MACHINE_PROVIDER is not: set MACHINE_PROVIDER=hetzner to use it');
    return undefined;
  }
  if (!e.HCLOUD_TOKEN) {
    problems.push('MACHINE_PROVIDER=hetzner needs HCLOUD_TOKEN, an API token of the Hetzner Cloud project (Read & Write)');
    return undefined;
  }
  const endpoint = e.HCLOUD_ENDPOINT ?? HETZNER_API;
  // The token goes wherever the endpoint is, and a machine runs what it downloads as root: in
  // clear text only on this machine (a stand-in, the demo).
  for (const [name, value] of [
    ['HCLOUD_ENDPOINT', endpoint],
    ['GALA_NODE_DOWNLOAD_URL', e.GALA_NODE_DOWNLOAD_URL],
  ] as const) {
    if (value?.startsWith('http:') && !isLoopbackUrl(value))
      problems.push(`${name} must be an https URL, or http on a loopback address, got "${redactUrl(value)}"`);
  }
  // The machines' agents fetch the customers' keys from PUBLIC_URL.
  if (e.PUBLIC_URL?.startsWith('http:') && !isLoopbackUrl(e.PUBLIC_URL)) {
    problems.push(
      `MACHINE_PROVIDER needs PUBLIC_URL to be an https URL, got "${redactUrl(e.PUBLIC_URL)}": the machines' agents fetch the customers' keys from it`,
    );
  }
  if (problems.length) return undefined;
  return {
    provider: e.MACHINE_PROVIDER,
    token: e.HCLOUD_TOKEN,
    endpoint,
    sshKeys: list(e.MACHINE_SSH_KEYS),
    firewalls: list(e.MACHINE_FIREWALLS),
    galaDownloadUrl: e.GALA_NODE_DOWNLOAD_URL ?? GALA_DOWNLOAD,
    galaSha256: e.GALA_NODE_SHA256,
    galaEulaAccepted: e.GALA_EULA_ACCEPTED,
    heartbeatSeconds: e.MACHINE_HEARTBEAT_SECONDS,
  };
}

function paymentsConfig(e: z.infer<typeof schema>, host: string, problems: string[]): PayPalConfig | undefined {
  const given = {
    PAYPAL_CLIENT_ID: e.PAYPAL_CLIENT_ID,
    PAYPAL_CLIENT_SECRET: e.PAYPAL_CLIENT_SECRET,
    PAYPAL_MODE: e.PAYPAL_MODE,
    PAYPAL_WEBHOOK_ID: e.PAYPAL_WEBHOOK_ID,
  };
  const missing = Object.entries(given)
    .filter(([, v]) => v === undefined || v === '')
    .map(([k]) => k);
  if (missing.length === 4) {
    if (e.PAYPAL_API_URL) problems.push('PAYPAL_API_URL needs PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_MODE and PAYPAL_WEBHOOK_ID');
    if (e.PAYMENTS_PROVIDER === 'paypal') {
      problems.push('PAYMENTS_PROVIDER=paypal needs PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_MODE and PAYPAL_WEBHOOK_ID');
    } else if (e.PAYMENTS_PROVIDER === undefined) {
      const choose = 'paypal, with the PAYPAL_* settings, or test, whose TEST payments add credit without taking any money';
      if (e.PUBLIC_URL && !isLoopbackUrl(e.PUBLIC_URL)) {
        problems.push(`PAYMENTS_PROVIDER must be set when PUBLIC_URL (${redactUrl(e.PUBLIC_URL)}) is not a local address: ${choose}`);
      } else if (!isLoopbackHost(host)) {
        problems.push(`PAYMENTS_PROVIDER must be set when HOST (${host}) is not a loopback address: ${choose}`);
      }
    }
    return undefined;
  }
  if (e.PAYMENTS_PROVIDER === 'test') {
    problems.push('PAYMENTS_PROVIDER=test, but PAYPAL_* settings are given too: remove them, or set PAYMENTS_PROVIDER=paypal');
    return undefined;
  }
  if (missing.length) {
    problems.push(`PayPal needs PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_MODE and PAYPAL_WEBHOOK_ID together; missing: ${missing.join(', ')}`);
    return undefined;
  }
  const mode = e.PAYPAL_MODE!.trim().toLowerCase();
  if (mode !== 'sandbox' && mode !== 'live') {
    problems.push(`PAYPAL_MODE must be sandbox or live, got "${e.PAYPAL_MODE}"`);
    return undefined;
  }
  return {
    clientId: e.PAYPAL_CLIENT_ID!,
    clientSecret: e.PAYPAL_CLIENT_SECRET!,
    mode,
    webhookId: e.PAYPAL_WEBHOOK_ID!,
    apiUrl: e.PAYPAL_API_URL ?? PAYPAL_HOSTS[mode],
    timeoutMs: e.PAYPAL_TIMEOUT_MS,
  };
}

function nowPaymentsConfig(e: z.infer<typeof schema>, problems: string[]): NowPaymentsConfig | undefined {
  const given = {
    NOWPAYMENTS_API_KEY: e.NOWPAYMENTS_API_KEY,
    NOWPAYMENTS_IPN_SECRET: e.NOWPAYMENTS_IPN_SECRET,
    NOWPAYMENTS_EMAIL: e.NOWPAYMENTS_EMAIL,
    NOWPAYMENTS_PASSWORD: e.NOWPAYMENTS_PASSWORD,
  };
  const missing = Object.entries(given)
    .filter(([, v]) => v === undefined || v === '')
    .map(([k]) => k);
  if (missing.length === 4) {
    if (e.NOWPAYMENTS_API_URL || e.NOWPAYMENTS_CHECKOUT_ORIGIN)
      problems.push('NOWPAYMENTS_API_URL and NOWPAYMENTS_CHECKOUT_ORIGIN need the other NOWPAYMENTS_* settings');
    return undefined;
  }
  if (missing.length) {
    problems.push(
      `Crypto payments need NOWPAYMENTS_API_KEY, NOWPAYMENTS_IPN_SECRET, NOWPAYMENTS_EMAIL and NOWPAYMENTS_PASSWORD together; missing: ${missing.join(', ')}`,
    );
    return undefined;
  }
  return {
    apiKey: e.NOWPAYMENTS_API_KEY!,
    ipnSecret: e.NOWPAYMENTS_IPN_SECRET!,
    email: e.NOWPAYMENTS_EMAIL!,
    password: e.NOWPAYMENTS_PASSWORD!,
    apiUrl: (e.NOWPAYMENTS_API_URL ?? 'https://api.nowpayments.io/v1').replace(/\/$/, ''),
    checkoutOrigin: new URL(e.NOWPAYMENTS_CHECKOUT_ORIGIN ?? 'https://nowpayments.io').origin,
    timeoutMs: e.NOWPAYMENTS_TIMEOUT_MS,
  };
}

/**
 * Discord's and Telegram's addresses go through the outbound guard like any other (decision 043):
 * one that is not https on port 443 would refuse every request, unless OUTBOUND_ALLOW lets it through.
 */
function outboundProblems(e: z.infer<typeof schema>, problems: string[]): void {
  const allow = parseAllowList(e.OUTBOUND_ALLOW);
  for (const [name, value] of [
    ['DISCORD_API_ORIGIN', e.DISCORD_API_ORIGIN],
    ['TELEGRAM_API_URL', e.TELEGRAM_API_URL],
  ] as const) {
    if (!value) continue;
    const u = new URL(value);
    const port = Number(u.port || (u.protocol === 'http:' ? 80 : 443));
    if ((u.protocol === 'http:' || u.port) && !isAllowListed(allow, u.hostname, port)) {
      problems.push(`${name} must be an https URL on port 443, or its host and port be listed in OUTBOUND_ALLOW, got "${redactUrl(value)}"`);
    }
  }
}

/** For the entry points (npm start, npm run worker): the config, or each problem on its own line and exit code 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
