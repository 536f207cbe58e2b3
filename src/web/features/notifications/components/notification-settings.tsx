import { useState } from 'react';
import { QueryState } from '@/components/ui/query-state';
import type { SignedInUser } from '@/lib/signed-in-user';
import { useChannels } from '../api/get-channels';
import { notificationTexts as t } from '../notification-texts';
import { ChannelsCard } from './channels-card';
import { channelColumns } from './columns';
import { PreferencesCard } from './preferences-card';
import { ServicesCard } from './services-card';
import { ThresholdCard } from './threshold-card';

/** Settings › Notifications: the channels, what goes to each, the low-balance threshold and each service's switches. */
export function NotificationSettings({ user }: { user: SignedInUser }) {
  const channels = useChannels();
  // The Telegram bot's @name comes with a new Telegram channel, and is kept while the page is open.
  const [bot, setBot] = useState<string>();
  return (
    <QueryState query={channels} loading={t.loading} failed={t.failed}>
      {(list) => {
        const columns = channelColumns(list);
        return (
          <div className="grid min-w-0 grid-cols-1 gap-6">
            <ChannelsCard email={user.email} channels={list} bot={bot} onBot={setBot} />
            <PreferencesCard columns={columns} />
            <ThresholdCard userId={user.id} />
            <ServicesCard columns={columns} />
          </div>
        );
      }}
    </QueryState>
  );
}
