import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { startHttpStandIn } from './http-stand-in';

/**
 * A customer's endpoint for signed webhooks: it records every delivery and checks it with the
 * standardwebhooks library's own `Webhook.verify` (signature over id.timestamp.body, timestamp
 * within 5 minutes). Once told the endpoint's secret, it answers a delivery that does not verify
 * 401, as a careful receiver would; otherwise it answers as told (204 by default), or with a
 * redirect, an oversized body, a body that stops half-way, or never.
 */
export type WebhookDelivery = {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  /** The payload `Webhook.verify` gave, when a secret was set and the delivery verified. */
  payload?: unknown;
  verified: boolean;
};

export type ReceiverAnswer =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { redirectTo: string }
  | { oversized: number }
  | { hang: true }
  /** Headers and a first piece of the body, then nothing more. */
  | { stall: true };

export type WebhookReceiver = {
  url: string;
  /** An endpoint's `whsec_` secret: deliveries (to `path` only, when given) are verified with it from now on. */
  useSecret(secret: string, path?: string): void;
  deliveries(): WebhookDelivery[];
  /** Payloads of deliveries that verified. */
  verified(): unknown[];
  /** The next deliveries are answered these, one each, in order. */
  answerNext(...answers: ReceiverAnswer[]): void;
  stop(): Promise<void>;
};

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secrets = new Map<string, string>();
  const recorded: WebhookDelivery[] = [];
  const answers: ReceiverAnswer[] = [];

  const http = await startHttpStandIn((req, res) => {
    const delivery: WebhookDelivery = { path: `${req.url.pathname}${req.url.search}`, headers: req.headers, body: req.body, verified: false };
    recorded.push(delivery);
    const secret = secrets.get(req.url.pathname) ?? secrets.get('*');
    if (secret) {
      try {
        const headers = Object.fromEntries(Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
        delivery.payload = new Webhook(secret).verify(req.body, headers);
        delivery.verified = true;
      } catch {
        return void res.writeHead(401, { 'content-type': 'text/plain' }).end('signature does not verify');
      }
    }
    const answer = answers.shift() ?? { status: 204 };
    if ('hang' in answer) return;
    if ('stall' in answer) return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' }).write('{"ok":');
    if ('redirectTo' in answer) return void res.writeHead(302, { location: answer.redirectTo }).end();
    if ('oversized' in answer) {
      // Sent in 16 KiB pieces as fast as the client takes them; a client that stops reading ends it.
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(answer.oversized) });
      const piece = Buffer.alloc(16 * 1024, 'x');
      let left = answer.oversized;
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, piece.length);
          left -= n;
          if (!res.write(piece.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return pump();
    }
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });

  return {
    url: http.url,
    useSecret: (s, path = '*') => void secrets.set(path, s),
    deliveries: () => [...recorded],
    verified: () => recorded.filter((d) => d.verified).map((d) => d.payload),
    answerNext: (...a) => void answers.push(...a),
    stop: http.stop,
  };
}
