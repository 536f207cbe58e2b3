import { CHANNEL_NAME_MAX, notificationMessages as m } from '@shared/notifications';
import { describe, expect, it } from 'vitest';
import { channelFormErrors, parseThreshold, refusalField } from './channel-form';

describe('channel form', () => {
  it('asks for a name of at most CHANNEL_NAME_MAX characters', () => {
    expect(channelFormErrors({ kind: 'telegram', name: '  ', url: '' })).toEqual({ name: m.nameRequired });
    expect(channelFormErrors({ kind: 'telegram', name: 'x'.repeat(CHANNEL_NAME_MAX + 1), url: '' })).toEqual({ name: m.nameTooLong });
    expect(channelFormErrors({ kind: 'telegram', name: 'x'.repeat(CHANNEL_NAME_MAX), url: '' })).toEqual({});
  });

  it('takes a Discord webhook by its path and a webhook only over https', () => {
    const hook = `https://discord.com/api/webhooks/123456789012345678/${'abc-DEF_9'.repeat(3)}`;
    expect(channelFormErrors({ kind: 'discord', name: 'ops', url: hook })).toEqual({});
    expect(channelFormErrors({ kind: 'discord', name: 'ops', url: hook.replace('/api/', '/api/v10/') })).toEqual({});
    for (const bad of ['https://discord.com/channels/1/2', hook.replace('https:', 'ftp:'), `${hook}?wait=true`, hook.replace('123456789012345678', '12')])
      expect(channelFormErrors({ kind: 'discord', name: 'ops', url: bad })).toEqual({ url: m.badDiscordUrl });
    expect(channelFormErrors({ kind: 'webhook', name: 'ops', url: 'https://hooks.example.com/n?x=1' })).toEqual({});
    expect(channelFormErrors({ kind: 'webhook', name: 'ops', url: 'http://hooks.example.com/n' })).toEqual({ url: m.badWebhookUrl });
    expect(channelFormErrors({ kind: 'webhook', name: 'ops', url: 'not a url' })).toEqual({ url: m.badWebhookUrl });
  });

  it('puts the server refusals under their field', () => {
    expect(refusalField(m.nameTooLong)).toBe('name');
    expect(refusalField(m.refusedAddress)).toBe('url');
    expect(refusalField(m.unresolvable)).toBe('url');
    expect(refusalField(m.tooManyChannels)).toBeUndefined();
  });

  it('reads the threshold: empty is none, up to $10,000 in cents', () => {
    expect(parseThreshold(' ')).toEqual({ amount: null });
    expect(parseThreshold('25')).toEqual({ amount: 25 });
    expect(parseThreshold('0.50')).toEqual({ amount: 0.5 });
    expect(parseThreshold('10000')).toEqual({ amount: 10_000 });
    for (const bad of ['-1', '10000.01', '1e3', 'ten', '1.234']) expect(parseThreshold(bad)).toEqual({ error: m.badThreshold });
  });
});
