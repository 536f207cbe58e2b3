import { describe, expect, it } from 'vitest';
import { powerEventText, powerMessages } from './power-actions';
import { serviceEventText } from './service-events';

const f = { date: (iso: string) => iso, money: (n: number) => `$${n}` };

describe('power events in words', () => {
  it.each([
    ['power_restart', { by: 'owner' }, 'Restarted by you'],
    ['power_restart', { by: 'admin' }, 'Restarted by an admin'],
    ['power_stop', { by: 'owner' }, 'Stopped by you'],
    ['power_stop', { by: 'admin' }, 'Stopped by an admin'],
    ['power_start', { by: 'owner' }, 'Started by you'],
    ['power_start', { by: 'admin' }, 'Started by an admin'],
    ['power_failed', { action: 'restart', error: 'engine down' }, 'The node could not be restarted'],
    ['power_failed', { action: 'stop' }, 'The node could not be stopped'],
    ['power_failed', { action: 'start' }, 'The node could not be started'],
    ['power_failed', { action: 'explode' }, 'The node could not be powered'],
    ['power_failed', null, 'The node could not be powered'],
    ['power_kept_stopped', null, 'Kept stopped, as it was stopped on request: start it to run it again'],
  ] as const)('%s %j: %s', (event, detail, text) => {
    // As the service page and the admin's user page tell them.
    expect(serviceEventText(event, detail, f)).toBe(text);
  });

  it('tells an event it does not know as nothing of its own', () => {
    expect(powerEventText('node_online', null)).toBeUndefined();
    // A detail with no "by" is read as the owner's.
    expect(powerEventText('power_stop', null)).toBe('Stopped by you');
  });

  it('counts the wait in minutes, one or more', () => {
    expect(powerMessages.tooMany(1)).toBe('At most 10 power actions an hour per service: try again in 1 minute');
    expect(powerMessages.tooMany(42)).toBe('At most 10 power actions an hour per service: try again in 42 minutes');
  });
});
