/**
 * The Error to throw for a failed functions.invoke: the function's own message ({ error }) when
 * it answered one, otherwise `fallback`.
 */
export async function functionError(error: unknown, fallback: string): Promise<Error> {
  const context = (error as { context?: unknown }).context;
  if (context instanceof Response) {
    const body = (await context.json().catch(() => null)) as { error?: unknown } | null;
    if (typeof body?.error === 'string') return new Error(body.error);
  }
  return new Error(fallback);
}
