import { CHANNEL_KIND_LABELS, CHANNEL_KINDS, CHANNEL_NAME_MAX, type ChannelKind } from '@shared/notifications';
import { Plus } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField, invalidProps } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useAddChannel, type AddedChannel } from '../api/add-channel';
import type { NotificationChannel } from '../api/get-channels';
import { channelFormErrors, refusalField, type ChannelFormErrors } from '../channel-form';
import { notificationTexts as t } from '../notification-texts';
import { SecretOnce } from './secret-once';
import { TelegramLink } from './telegram-link';

type Added = AddedChannel & { kind: ChannelKind; name: string };

/**
 * Adds a Discord, Telegram or webhook channel. A webhook's secret and a Telegram chat's code come
 * back from the server once, and are shown here before the dialog closes.
 */
export function AddChannelDialog({ channels, onBot }: { channels: NotificationChannel[]; onBot: (bot: string) => void }) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<ChannelKind>('discord');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [refusal, setRefusal] = useState<{ field?: keyof ChannelFormErrors; message: string } | null>(null);
  const [added, setAdded] = useState<Added | null>(null);
  const add = useAddChannel();

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) {
      setKind('discord');
      setName('');
      setUrl('');
      setSubmitted(false);
      setRefusal(null);
      setAdded(null);
    }
  };

  const own = submitted ? channelFormErrors({ kind, name, url }) : {};
  const errors: ChannelFormErrors = { ...own, ...(refusal?.field ? { [refusal.field]: refusal.message } : {}) };
  const general = refusal && !refusal.field ? refusal.message : undefined;

  const submit = async () => {
    setSubmitted(true);
    setRefusal(null);
    // As the other forms do, the first field to correct takes the focus.
    const found = channelFormErrors({ kind, name, url });
    if (found.name || found.url) return document.getElementById(found.name ? 'channel-name' : 'channel-url')?.focus();
    try {
      const answer = await add.mutateAsync({ kind, name: name.trim(), ...(kind === 'telegram' ? {} : { url: url.trim() }) });
      if (answer.bot) onBot(answer.bot);
      if (kind === 'discord') {
        toast.success(t.added, t.addedText(name.trim()));
        onOpenChange(false);
      } else setAdded({ ...answer, kind, name: name.trim() });
    } catch (e) {
      const message = errorText(e);
      setRefusal({ field: refusalField(message), message });
    }
  };

  const urlLabel = kind === 'discord' ? t.discordUrl : t.webhookUrl;
  const urlHint = kind === 'discord' ? t.discordUrlHint : t.webhookUrlHint;
  // Until the list is read again, the answer alone stands for the new channel.
  const shownChannel: NotificationChannel | undefined = added
    ? (channels.find((c) => c.id === added.id) ?? {
        id: added.id,
        kind: added.kind,
        name: added.name,
        state: 'pending',
        target_hint: '',
        telegram_code: added.code ?? null,
        telegram_code_expires_at: null,
        failures: 0,
        disabled_reason: null,
        created_at: new Date().toISOString(),
      })
    : undefined;

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={added ? added.name : t.addTitle}
      description={added ? undefined : t.addDescription}
      trigger={
        <Button size="sm">
          <Plus className="size-4" aria-hidden="true" /> {t.addChannel}
        </Button>
      }
    >
      {added ? (
        <div className="space-y-4">
          {added.secret && <SecretOnce secret={added.secret} />}
          {added.kind === 'telegram' && shownChannel && <TelegramLink channel={shownChannel} bot={added.bot} code={added.code} />}
          <div className="flex justify-end">
            <Button onClick={() => onOpenChange(false)}>{t.done}</Button>
          </div>
        </div>
      ) : (
        <form
          noValidate
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium">{t.kind}</legend>
            <div className="grid grid-cols-3 gap-2">
              {CHANNEL_KINDS.map((k) => (
                <label
                  key={k}
                  className="flex cursor-pointer items-center gap-2 rounded-lg border border-border p-3 text-sm has-[:checked]:border-primary has-[:checked]:bg-muted"
                >
                  <input
                    type="radio"
                    name="channel-kind"
                    value={k}
                    checked={kind === k}
                    onChange={() => {
                      setKind(k);
                      setRefusal(null);
                    }}
                  />
                  {CHANNEL_KIND_LABELS[k]}
                </label>
              ))}
            </div>
          </fieldset>
          <FormField id="channel-name" label={t.name} error={errors.name}>
            <Input
              id="channel-name"
              autoComplete="off"
              maxLength={CHANNEL_NAME_MAX + 20}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                if (refusal?.field === 'name') setRefusal(null);
              }}
              {...invalidProps('channel-name', errors.name)}
            />
          </FormField>
          {kind === 'telegram' ? (
            <p className="text-sm text-muted-foreground">{t.telegramHint}</p>
          ) : (
            <FormField id="channel-url" label={urlLabel} error={errors.url}>
              <Input
                id="channel-url"
                type="url"
                inputMode="url"
                autoComplete="off"
                spellCheck={false}
                value={url}
                aria-describedby={errors.url ? 'channel-url-error' : 'channel-url-hint'}
                onChange={(e) => {
                  setUrl(e.target.value);
                  if (refusal?.field === 'url') setRefusal(null);
                }}
                {...invalidProps('channel-url', errors.url)}
              />
              {!errors.url && (
                <p id="channel-url-hint" className="text-xs text-muted-foreground">
                  {urlHint}
                </p>
              )}
            </FormField>
          )}
          {general && (
            <p role="alert" className="text-sm text-destructive">
              {general}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              {t.cancel}
            </Button>
            <Button type="submit" disabled={add.isPending}>
              {add.isPending ? t.adding : t.addChannel}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
