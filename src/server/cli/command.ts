import { userInfo } from 'node:os';
import type { ParseArgsConfig } from 'node:util';
import type { AppDeps } from '../deps';
import { CliError } from './cli-error';

export type CliValues = Record<string, string | boolean | undefined>;

export type Command = {
  usage: string;
  summary: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * Options that name a file: made absolute against the CLI's folder before the command runs,
   * which may be in the running server (the control channel), whose folder is another.
   */
  files?: readonly string[];
  /** Reads the database as it is: the CLI does not migrate and seed it before running the command. */
  asIs?: true;
  run(deps: AppDeps, values: CliValues, print: (line: string) => void): Promise<void>;
};

/** Reads a required string option or explains what is missing. */
export function required(values: CliValues, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new CliError(`--${name} is required`);
  return v.trim();
}

/** Who the audit log names for a CLI command: the operating-system user who ran it. */
export function cliActor(): string {
  return `cli:${userInfo().username}`;
}
