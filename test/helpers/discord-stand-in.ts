import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { json, startHttpStandIn } from './http-stand-in';

/**
 * A local stand-in for Discord's webhooks (https://discord.com/developers/docs/resources/webhook#execute-webhook):
 * POST /api[/v10]/webhooks/<id>/<token>[?wait=true] with a JSON body, answered as Discord does:
 * 204 No Content, or 200 and the created message with wait=true; 404 Unknown Webhook (code 10015)
 * for a webhook that does not exist or was deleted, 401 Invalid Webhook Token (50027) for a wrong
 * token, 400 Invalid Form Body (50035) for content past 2000 characters or an empty message, and
 * 429 with `retry_after` (seconds, a float) and Retry-After when told to rate-limit.
 */
export type DiscordExecution = {
  webhookId: string;
  /** The JSON body as sent: content, allowed_mentions… */
  body: { content?: string; embeds?: unknown[]; allowed_mentions?: { parse?: string[] }; [k: string]: unknown };
  wait: boolean;
  headers: IncomingHttpHeaders;
};

/** What the next executions are answered instead of being accepted, one each, in order. */
export type DiscordFault = { kind: 'rate-limit'; retryAfter: number } | { kind: 'not-found' } | { kind: 'server-error' } | { kind: 'hang' };

export type DiscordStandIn = {
  /** Discord's origin here (DISCORD_API_ORIGIN). */
  url: string;
  /** A new webhook's URL as "Copy Webhook URL" gives it: `${url}/api/webhooks/<id>/<token>`. */
  webhookUrl(): string;
  /** Executions Discord accepted (posted to the channel), oldest first. */
  received(): DiscordExecution[];
  /** Every execution that arrived, accepted or not. */
  attempts(): DiscordExecution[];
  failNext(...faults: DiscordFault[]): void;
  /** The webhook is deleted in Discord: 404 from now on. */
  deleteWebhook(webhookUrl: string): void;
  stop(): Promise<void>;
};

const PATH = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([A-Za-z0-9_-]+)$/;

export async function startDiscordStandIn(): Promise<DiscordStandIn> {
  const webhooks = new Map<string, string>();
  const accepted: DiscordExecution[] = [];
  const all: DiscordExecution[] = [];
  const faults: DiscordFault[] = [];
  let nextId = 1_200_000_000_000_000_000n;

  const http = await startHttpStandIn((req, res) => {
    const m = PATH.exec(req.url.pathname);
    if (!m || req.method !== 'POST') return json(res, 404, { message: '404: Not Found', code: 0 });
    const [, id, token] = m as unknown as [string, string, string];
    let body: DiscordExecution['body'];
    try {
      body = JSON.parse(req.body) as DiscordExecution['body'];
    } catch {
      return json(res, 400, { message: 'The request body contains invalid JSON.', code: 50109 });
    }
    const wait = req.url.searchParams.get('wait') === 'true';
    const execution = { webhookId: id, body, wait, headers: req.headers };
    all.push(execution);
    const fault = faults.shift();
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'rate-limit') {
      return json(
        res,
        429,
        { message: 'You are being rate limited.', retry_after: fault.retryAfter, global: false },
        { 'retry-after': String(Math.ceil(fault.retryAfter)), 'x-ratelimit-scope': 'shared' },
      );
    }
    if (fault?.kind === 'server-error') return json(res, 500, { message: '500: Internal Server Error', code: 0 });
    const known = webhooks.get(id);
    if (known === undefined || fault?.kind === 'not-found') return json(res, 404, { message: 'Unknown Webhook', code: 10015 });
    if (known !== token) return json(res, 401, { message: 'Invalid Webhook Token', code: 50027 });
    if (!body.content && !body.embeds?.length) return json(res, 400, { message: 'Cannot send an empty message', code: 50006 });
    if ((body.content ?? '').length > 2000) {
      return json(res, 400, {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
      });
    }
    accepted.push(execution);
    if (!wait) return void res.writeHead(204).end();
    json(res, 200, {
      id: String(nextId++),
      type: 0,
      content: body.content ?? '',
      channel_id: '1100000000000000001',
      author: { id, username: 'NodeHarbor', bot: true, discriminator: '0000' },
      webhook_id: id,
      mention_everyone: false,
      mentions: [],
      embeds: body.embeds ?? [],
      timestamp: new Date().toISOString(),
    });
  });

  return {
    url: http.url,
    webhookUrl() {
      const id = String(nextId++);
      const token = randomBytes(51).toString('base64url');
      webhooks.set(id, token);
      return `${http.url}/api/webhooks/${id}/${token}`;
    },
    received: () => [...accepted],
    attempts: () => [...all],
    failNext: (...f) => void faults.push(...f),
    deleteWebhook(webhookUrl) {
      const m = PATH.exec(new URL(webhookUrl).pathname);
      if (m) webhooks.delete(m[1]!);
    },
    stop: http.stop,
  };
}
