import { createHmac } from 'node:crypto';
import { z } from 'zod';

/**
 * A NodeHarbor backup is one gzip file of newline-delimited JSON, in two gzip members: the first
 * holds the manifest line, the second the content, so `zcat FILE | head -1` shows the manifest.
 * The content is each table in turn: a line `["table","schema.name"]`, then one JSON object per
 * row (row_to_json), in an order that inserts parents before the rows that reference them.
 */
export const BACKUP_FORMAT = 'nodeharbor-backup';
export const BACKUP_VERSION = 1;

export const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.number().int(),
  takenAt: z.string(),
  database: z.enum(['pglite', 'postgres']),
  /** nodeharbor.migrations when it was taken: a restore needs the same list. */
  migrations: z.array(z.string()),
  tables: z.array(z.object({ name: z.string(), rows: z.number().int().nonnegative() })),
  sequences: z.array(z.object({ name: z.string(), value: z.number().int(), isCalled: z.boolean() })),
  /** The ENCRYPTION_KEY's check value (encryption-key-check.ts): which key opens the stored keys. */
  encryptionKeyCheck: z.string().nullable(),
  /** The JWT secret's, the same way: whether sessions signed before the backup stay valid after a restore. */
  jwtSecretCheck: z.string(),
  /** SHA-256 (hex) of the content, every byte after the manifest's line, uncompressed. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** HMAC-SHA256 of the rest of the manifest under a key derived from ENCRYPTION_KEY (backup-signature.ts); absent in backups of before issue 42. */
  signature: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;

const JWT_LABEL = 'nodeharbor jwt secret check';

/** Tells JWT secrets apart and reveals nothing of them, like the encryption key's check value. */
export function jwtSecretCheck(secret: Uint8Array): string {
  return createHmac('sha256', secret).update(JWT_LABEL).digest('hex');
}

/** What a backup or a restore reports: the operator's words for the data, and every row. */
export type DataSummary = { users: number; services: number; ledgerRows: number; ledgerTotal: string; rows: number; tables: number };

export function describeData(s: DataSummary): string {
  return `${s.users} user(s), ${s.services} service(s) and ${s.ledgerRows} ledger row(s) ($${s.ledgerTotal} in total), ${s.rows} rows in ${s.tables} tables`;
}

/** The figures of describeData, read from the database (inside the snapshot or the restore's transaction). */
export const DATA_SUMMARY_SQL = `select (select count(*) from auth.users)::int as users,
  (select count(*) from private.services)::int as services,
  (select count(*) from public.credit_transactions)::int as "ledgerRows",
  (select coalesce(sum(amount), 0) from public.credit_transactions)::numeric(14, 2)::text as "ledgerTotal"`;
