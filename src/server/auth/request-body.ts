import type { Context } from 'hono';
import { BODY_NOT_RECEIVED, containsNul, JSON_TOO_DEEP, parseJsonBody, readBodyText } from '../http/json-body';
import { badJson, validationFailed } from './auth-errors';

export type JsonObject = Record<string, unknown>;

/** Reads the body as a JSON object, or throws GoTrue's 400 bad_json. */
export async function readJsonObject(c: Context): Promise<JsonObject> {
  const text = await readBodyText(c);
  if (text === undefined) throw badJson(BODY_NOT_RECEIVED);
  const parsed = parseJsonBody(text);
  if (!parsed.ok) {
    if (parsed.reason === 'too-deep') throw badJson(JSON_TOO_DEEP);
    throw badJson(text.trim() === '' ? 'unexpected end of JSON input' : 'invalid JSON');
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badJson('the body must be a JSON object');
  // PostgreSQL text and jsonb cannot hold U+0000; refuse it here rather than fail in the database.
  if (containsNul(value)) throw validationFailed('The request must not contain NUL (\\u0000) characters');
  return value as JsonObject;
}

/** A string field; absent or null reads as undefined, any other type is a bad_json error. */
export function optionalString(body: JsonObject, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badJson(`field ${key} must be a string`);
  return v;
}

/** An object field; absent or null reads as undefined, any other type is a bad_json error. */
export function optionalObject(body: JsonObject, key: string): JsonObject | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badJson(`field ${key} must be an object`);
  return v as JsonObject;
}
