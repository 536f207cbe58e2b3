import type { ChannelRef } from '@shared/notifications';
import type { NotificationChannel } from '../api/get-channels';
import { notificationTexts as t } from '../notification-texts';

/** A column of the matrix and of the services' switches: e-mail first, then each channel. */
export type Column = { ref: ChannelRef; label: string };

export function channelColumns(channels: NotificationChannel[]): Column[] {
  return [{ ref: 'email', label: t.email }, ...channels.map((c) => ({ ref: c.id, label: c.name }))];
}

/** Whether a switch is on: the rows hold only changed choices, so one without a row is on. */
export function isOn<R extends { channel: ChannelRef; enabled: boolean }>(rows: readonly R[], match: (r: R) => boolean): boolean {
  return rows.find(match)?.enabled ?? true;
}
