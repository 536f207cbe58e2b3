import { ConfigError } from '../env';

/** A mistake the operator can fix; printed without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

/** A command's failure as the CLI prints it: the operator's mistake as it is, anything else as "Failed: ...". */
export function describeFailure(e: unknown): string {
  if (e instanceof CliError || e instanceof ConfigError) return e.message;
  return `Failed: ${e instanceof Error ? e.message : String(e)}`;
}
