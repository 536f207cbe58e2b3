import { describe, expect, it } from 'vitest';
import { serviceEventText } from './service-events';

// The dashboard's formatters for en-US in UTC, as far as event texts use them (unit tests have no '@/' alias).
const f = {
  date: (iso: string) => new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso)),
  money: (n: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n),
};
const text = (event: string, detail: Parameters<typeof serviceEventText>[1] = null) => serviceEventText(event, detail, f);

describe('serviceEventText', () => {
  it.each([
    ['install_requested', { reused: false, charged: 10 }, 'Installation started'],
    ['install_requested', { reused: true }, 'Installation started (a purchased service reused)'],
    ['installed', null, 'Node installed'],
    // The owner's copy says the cause in their words; an admin's has the engine's reason (migration 0051).
    ['install_failed', { cause: 'not_started' }, 'Installation failed. We could not start your node. We are looking into it.'],
    ['install_failed', { cause: 'key_refused' }, "Installation failed. The node's network refused your key. Change the key, then retry the installation."],
    [
      'install_failed',
      { cause: 'not_started', refunded: 10 },
      'Installation failed; $10.00 refunded to your balance. We could not start your node. We are looking into it.',
    ],
    ['install_failed', { cause: 'not_started', reason: 'image pull failed' }, 'Installation failed: image pull failed'],
    ['retry_requested', { by: 'owner' }, 'Retry requested'],
    ['retry_requested', { by: 'admin' }, 'Retry requested by an administrator'],
    ['install_failed', { reason: 'image pull failed', refunded: 10 }, 'Installation failed: image pull failed; $10.00 refunded to your balance'],
    ['retry_requested', { by: 'owner', charged: 10 }, 'Retry requested, $10.00 charged'],
    ['renewed', { months: 1, charged: 10, renews_at: '2026-12-24T10:00:00Z' }, 'Renewed for 1 month until Dec 24, 2026, $10.00 charged'],
    ['renewed', { months: 3, charged: 30, renews_at: '2027-03-24T10:00:00Z' }, 'Renewed for 3 months until Mar 24, 2027, $30.00 charged'],
    ['renewed', { charged: 10, renews_at: '2026-12-24T10:00:00Z' }, 'Renewed until Dec 24, 2026, $10.00 charged'],
    ['renewed', { charged: 0, renews_at: '2026-12-24T10:00:00Z' }, 'Renewed until Dec 24, 2026'],
    ['extended', { months: 1, renews_at: '2026-12-24T10:00:00Z' }, 'Extended by 1 month'],
    ['extended', { months: 3 }, 'Extended by 3 months'],
    ['extended', null, 'Extended'],
    ['expired', { reason: 'balance too low' }, 'Expired: the balance was too low to renew'],
    ['expired', { reason: 'no renewing plan' }, 'Expired: the plan no longer renews'],
    ['expired', { reason: 'suspended by support' }, 'Expired: suspended by support'],
    ['expired', { reason: 'auto_renew_off' }, 'Expired: automatic renewal was off'],
    [
      'suspended',
      { reason: 'balance too low', terminates_at: '2026-12-24T10:00:00Z' },
      'Suspended: the balance was too low to renew; terminates on Dec 24, 2026',
    ],
    ['start_requested', null, 'Start requested'],
    ['started', null, 'Started'],
    ['start_failed', { error: 'engine down' }, 'Starting the node failed'],
    ['stopped', null, 'Stopped'],
    ['stop_failed', { error: 'engine down' }, 'Stopping the node failed'],
    ['delete_requested', null, 'Deletion requested'],
    ['delete_requested', { reason: 'account_deleted' }, 'Deletion requested: the account was closed'],
    ['delete_requested', { reason: 'suspension_ended' }, 'Deletion requested: the suspension ended without enough credit to renew'],
    ['delete_failed', { error: 'engine down' }, 'Deleting the node failed'],
    ['deleted', null, 'Deleted'],
    ['node_recreated', null, 'Node recreated'],
    ['replicas_corrected', { replicas: 1 }, 'Node started again, as it should be'],
    ['replicas_corrected', { replicas: 0 }, 'Node stopped, as it should be'],
    ['orphan_removed', null, 'Leftover node removed'],
    ['logs_read', { by: 'admin' }, 'Logs read by an administrator'],
    ['key_changed', null, 'Key changed'],
    ['key_applied', null, 'New key handed to the node'],
    ['key_update_failed', { error: 'engine down' }, 'The new key could not be handed to the node'],
    ['renamed', { to: 'new-name' }, 'Renamed to new-name'],
    ['renamed', null, 'Renamed'],
    ['auto_renew_off', null, 'Automatic renewal turned off'],
    ['auto_renew_on', null, 'Automatic renewal turned on'],
    ['node_online', { from: 'offline' }, 'Node back online'],
    ['node_online', null, 'Node online'],
    ['node_offline', { reason: 'host down' }, 'Node offline: host down'],
    ['node_restarting', { exit_code: 1 }, 'Node restarting (exit code 1)'],
    ['node_restarted', { exit_code: 137 }, 'Node restarted (exit code 137)'],
    ['node_stopped', null, 'Node stopped'],
  ] as const)('%s %j: %s', (event, detail, expected) => {
    expect(text(event, detail)).toBe(expected);
  });

  it('tells an event it does not know by its name', () => {
    expect(text('backup_taken', { reason: 'x' })).toBe('Backup taken');
    expect(text('___')).toBe('Event');
  });
});
