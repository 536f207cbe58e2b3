import { Button } from '@/components/ui/button';
import { errorText } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useNewTelegramCode } from '../api/change-channel';
import type { NotificationChannel } from '../api/get-channels';
import { notificationTexts as t } from '../notification-texts';

/**
 * How to link a pending Telegram channel: send the bot "/start CODE" (the t.me link does it in one
 * tap), before the code expires, or ask for a new one. Once the chat is linked the channel list,
 * read every few seconds while one is pending, turns it Active and this says so.
 */
export function TelegramLink({ channel, bot, code }: { channel: NotificationChannel; bot: string | undefined; code?: string | undefined }) {
  const f = useFormat();
  const renew = useNewTelegramCode();
  if (channel.state !== 'pending')
    return channel.state === 'active' ? (
      <p role="status" className="text-sm font-medium text-green-700 dark:text-green-400">
        {t.telegramLinked}
      </p>
    ) : null;
  // The list's code is the newest once read; the answer's fills in until then.
  const shown = channel.telegram_code ?? code;
  const expires = channel.telegram_code_expires_at;
  const expired = expires !== null && !f.isFuture(expires);
  const name = bot?.replace(/^@/, '');

  const newCode = async () => {
    try {
      await renew.mutateAsync(channel.id);
    } catch (e) {
      toast.error(t.newCodeFailed, errorText(e));
    }
  };

  return (
    <section className="space-y-2 rounded-md border border-border p-3 text-sm" aria-label={t.telegramHeading}>
      <h3 className="font-semibold">{t.telegramHeading}</h3>
      {shown && !expired ? (
        <>
          <p>
            {t.telegramSend(shown)}{' '}
            {name ? (
              <a
                className="font-medium text-primary underline"
                href={`https://t.me/${name}?start=${encodeURIComponent(shown)}`}
                target="_blank"
                rel="noreferrer"
              >
                @{name}
              </a>
            ) : (
              t.telegramOurBot
            )}
            .
          </p>
          <code className="block rounded bg-muted px-2 py-1 font-mono text-base" data-testid="telegram-code">
            /start {shown}
          </code>
          {expires && <p className="text-muted-foreground">{t.telegramExpires(f.dateTime(expires))}</p>}
        </>
      ) : (
        <p className="text-muted-foreground">{t.telegramExpired}</p>
      )}
      <Button variant="outline" size="sm" disabled={renew.isPending} onClick={() => void newCode()}>
        {t.newCode}
      </Button>
    </section>
  );
}
