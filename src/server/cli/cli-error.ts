/** A mistake the operator can fix; printed without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}
