import type { Config } from '../env';
import { createChannelSender } from './create-channel-sender';

export type Channels = ReturnType<typeof createChannelSender>;

const made = new WeakMap<Config['outbound'], Channels>();

/**
 * The one ChannelSender of a configuration (and its Telegram bot), shared by the worker's
 * deliveries and the functions' URL checks: its outbound client is made once.
 */
export function channelsFor(config: Pick<Config, 'outbound'>): Channels {
  let channels = made.get(config.outbound);
  if (!channels) made.set(config.outbound, (channels = createChannelSender(config.outbound)));
  return channels;
}
