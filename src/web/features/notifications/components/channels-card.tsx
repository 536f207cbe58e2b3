import { CHANNEL_KIND_LABELS, CHANNEL_STATE_LABELS, type ChannelKind, type ChannelState } from '@shared/notifications';
import { Mail, MessageCircle, Send, Webhook } from 'lucide-react';
import { useId } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useEnableChannel } from '../api/change-channel';
import type { NotificationChannel } from '../api/get-channels';
import { useSendTest } from '../api/send-test';
import { notificationTexts as t } from '../notification-texts';
import { AddChannelDialog } from './add-channel-dialog';
import { DeliveryLogDialog } from './delivery-log-dialog';
import { RemoveChannelDialog } from './remove-channel-dialog';
import { TelegramLink } from './telegram-link';

const ICON = { discord: MessageCircle, telegram: Send, webhook: Webhook } as const satisfies Record<ChannelKind, unknown>;
const STATE_VARIANT = { pending: 'warning', active: 'success', disabled: 'destructive' } as const satisfies Record<ChannelState, string>;

function ChannelItem({ channel, bot }: { channel: NotificationChannel; bot: string | undefined }) {
  const nameId = useId();
  const sendTest = useSendTest();
  const enable = useEnableChannel();
  const Icon = ICON[channel.kind];

  const test = async () => {
    try {
      await sendTest.mutateAsync(channel.id);
      toast.success(t.testQueued, t.testQueuedText(channel.name));
    } catch (e) {
      toast.error(t.testFailed, errorText(e));
    }
  };
  const enableAgain = async () => {
    try {
      await enable.mutateAsync(channel.id);
      toast.success(t.enabled, t.enabledText(channel.name));
    } catch (e) {
      toast.error(t.enableFailed, errorText(e));
    }
  };

  return (
    <li className="rounded-md border border-border p-3 text-sm">
      {/* A group named by the channel: its buttons say only what they do, and a screen reader names the channel on entering. */}
      <div role="group" aria-labelledby={nameId} className="space-y-3">
        <div className="flex items-start gap-3">
          <Icon className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
          <div className="min-w-0 flex-1">
            <p className="flex flex-wrap items-center gap-2">
              <span id={nameId} className="break-all font-medium">
                {channel.name}
              </span>
              <Badge variant={STATE_VARIANT[channel.state]}>{CHANNEL_STATE_LABELS[channel.state]}</Badge>
            </p>
            <p className="break-all text-muted-foreground">
              {CHANNEL_KIND_LABELS[channel.kind]}
              {channel.target_hint && ` · ${channel.target_hint}`}
            </p>
            {channel.state === 'disabled' && (
              <p className="mt-1 text-destructive">{channel.disabled_reason ? t.disabledBecause(channel.disabled_reason) : t.disabledNoReason}</p>
            )}
          </div>
        </div>
        {channel.kind === 'telegram' && channel.state === 'pending' && <TelegramLink channel={channel} bot={bot} />}
        <div className="flex flex-wrap gap-2">
          {channel.state === 'active' && (
            <Button variant="outline" size="sm" disabled={sendTest.isPending} onClick={() => void test()}>
              {t.sendTest}
            </Button>
          )}
          {channel.state === 'disabled' && (
            <Button size="sm" disabled={enable.isPending} onClick={() => void enableAgain()}>
              {t.enableAgain}
            </Button>
          )}
          <DeliveryLogDialog channel={channel} />
          <RemoveChannelDialog channel={channel} />
        </div>
      </div>
    </li>
  );
}

/**
 * The account's e-mail, always there, then each channel with its state and actions. `bot` is the
 * Telegram bot's name, known once the server has given it (it comes with a new Telegram channel).
 */
export function ChannelsCard({
  email,
  channels,
  bot,
  onBot,
}: {
  email: string;
  channels: NotificationChannel[];
  bot: string | undefined;
  onBot: (bot: string) => void;
}) {
  return (
    <Card role="region" aria-labelledby="channels-heading">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h2 id="channels-heading" className="text-lg font-semibold">
            {t.channelsHeading}
          </h2>
          <p className="mt-1 text-sm text-muted-foreground">{t.channelsIntro}</p>
        </div>
        <AddChannelDialog channels={channels} onBot={onBot} />
      </div>
      <ul className="mt-4 space-y-2" aria-label={t.channelsHeading}>
        <li className="flex items-start gap-3 rounded-md border border-border p-3 text-sm">
          <Mail className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
          <div className="min-w-0">
            <p className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{t.email}</span>
              <Badge variant="success">{CHANNEL_STATE_LABELS.active}</Badge>
            </p>
            <p className="break-all text-muted-foreground">{email}</p>
            <p className="text-muted-foreground">{t.emailNote}</p>
          </div>
        </li>
        {channels.map((c) => (
          <ChannelItem key={c.id} channel={c} bot={bot} />
        ))}
      </ul>
    </Card>
  );
}
