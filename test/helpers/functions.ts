import type { FunctionsHttpError, SupabaseClient } from '@supabase/supabase-js';

export type Invoked = { status: number; body: Record<string, unknown> };

/** functions.invoke as the dashboard calls it, errors read from error.context. */
export async function invokeFunction(client: SupabaseClient, name: string, body: unknown): Promise<Invoked> {
  const { data, error } = await client.functions.invoke(name, { body: body as Record<string, unknown> });
  if (!error) return { status: 200, body: data as Record<string, unknown> };
  const res = (error as FunctionsHttpError).context as Response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
