import type { z } from 'zod';
import type { ScheduledBackups } from '../backup/scheduled-backups';
import type { Database } from '../db/database';
import type { Logger } from '../http/logger';
import type { Mailer } from '../mail/mailer';
import type { Channels } from '../notify/channels';
import type { CryptoProcessor } from '../payments/crypto';
import type { PaymentProvider } from '../payments/provider';
import type { NodeSettings } from '../provisioning/node-settings';
import type { Provisioner } from '../provisioning/provisioner';
import type { Seller } from '../../shared/billing-documents';

/** What a task handler may use. */
export type JobDeps = {
  db: Database;
  logger: Logger;
  mailer: Mailer;
  provisioner: Provisioner;
  nodes: NodeSettings;
  payments: PaymentProvider;
  /** Crypto top-ups, when NOWPAYMENTS_* is set. */
  crypto?: CryptoProcessor;
  /** Who issues receipts and credit notes (BILLING_*). */
  seller: Seller;
  /** SUSPENSION_DAYS: how long an unrenewed service stays suspended before it is terminated. */
  suspensionDays: number;
  /** Where the site is (PUBLIC_URL): links in the mails jobs send. */
  publicUrl: string;
  /** Scheduled backups (BACKUP_DIR); undefined when they are off. */
  backups?: ScheduledBackups;
  /** The notification channels' protocols (Discord, Telegram, webhooks) and the Telegram bot, if TELEGRAM_BOT_TOKEN is set. */
  channels: Channels;
};

/**
 * The queue's lanes, each with its own concurrency: a node's install, start, stop or key change
 * waits on the engine, for minutes when an image is slow to pull, and a backlog of them must never
 * hold up the upkeep of everyone's account (renewals, payments, mail, the node monitor).
 */
export type Lane = 'nodes' | 'upkeep';
export const LANES: readonly Lane[] = ['nodes', 'upkeep'];

/**
 * One kind of job: its payload is checked with `payload` before `run` sees it. Jobs are
 * at-least-once, so `run` must be idempotent: running it again after a crash does nothing twice.
 */
export type Task<P = unknown> = {
  name: string;
  lane: Lane;
  payload: z.ZodType<P>;
  run(payload: P, deps: JobDeps): Promise<void>;
  /** Called once when the job has failed for good (its last attempt failed). */
  onFailed?(payload: P, deps: JobDeps, error: string): Promise<void>;
};

export function defineTask<P>(task: Task<P>): Task<P> {
  return task;
}

/**
 * Thrown by a task whose job cannot run yet, for a reason that passes by itself (a mail waiting
 * for an earlier one): the worker puts the job back for `seconds` without spending an attempt.
 */
export class NotYet extends Error {
  constructor(
    message: string,
    readonly seconds: number,
  ) {
    super(message);
  }
}
