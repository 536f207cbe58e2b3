import { join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * The control channel: a Unix socket in DATA_DIR, where the server that owns the embedded
 * database runs the CLI's commands for it. Newline-delimited JSON: the CLI sends one request line,
 * the server answers with a line per printed line and ends with one outcome line.
 */
export const controlSocketPath = (dataDir: string): string => join(resolve(dataDir), 'control.sock');

/** The longest request line: options are short words and paths. */
export const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * The longest socket path the system takes (sun_path holds 108 bytes on Linux and 104 on macOS,
 * with the closing NUL); a DATA_DIR deeper than this runs without the control channel.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

export const requestSchema = z.object({
  command: z.string(),
  values: z.record(z.string(), z.union([z.string(), z.boolean()])),
});

export type ControlRequest = z.infer<typeof requestSchema>;

/** `print`: a line the command printed; `exit`: its outcome, with the message of a failure. */
export type ControlReply = { print: string } | { exit: number; error?: string };
