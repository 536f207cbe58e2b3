import { randomBytes, randomUUID } from 'node:crypto';
import type { OutboundMessage } from '../../src/server/notify/channel-sender';

/** A node_down notification as delivery builds one; `id` is a fresh Standard Webhooks message id. */
export function nodeDownMessage(over: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    event: 'node_down',
    title: 'Node down: my-node',
    text: 'my-node has been offline for 10 minutes.',
    url: 'https://nodeharbor.test/dashboard/services/8c5b',
    data: { serviceId: '8c5b0f0e-2a51-4c1e-9d43-0d6c1f1f3a10', serviceName: 'my-node' },
    occurredAt: new Date('2026-11-28T20:00:00Z'),
    ...over,
  };
}

/** A Standard Webhooks symmetric secret: whsec_ and 24 random bytes in base64, as the spec asks. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
