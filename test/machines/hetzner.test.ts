import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHetznerProvider } from '../../src/server/provisioning/machines/hetzner';
import { ProviderError, type MachineProvider, type MachineSpec } from '../../src/server/provisioning/machines/provider';
import { resolvesWithin } from '../helpers/wait';
import { startHetznerStandIn, type BootedServer, type HetznerStandIn } from './hetzner-standin';

describe('the Hetzner Cloud provider against a local stand-in', () => {
  let hz: HetznerStandIn;
  let provider: MachineProvider;
  const booted: BootedServer[] = [];
  const deleted: string[] = [];
  const powered: [string, boolean][] = [];

  beforeEach(async () => {
    booted.length = 0;
    deleted.length = 0;
    powered.length = 0;
    hz = await startHetznerStandIn({
      actionPolls: 3,
      onBoot: (s) => booted.push(s),
      onDelete: (id) => deleted.push(id),
      onPower: (id, on) => powered.push([id, on]),
    });
    provider = createHetznerProvider({ token: hz.token, baseUrl: hz.url, pollMs: 5 });
  });
  afterEach(() => hz.close());

  const SERVICE = '0123456789ab-cdef-4000-8000-000000000001';
  const spec = (overrides: Partial<MachineSpec> = {}): MachineSpec => ({
    name: 'nh-0123456789ab',
    serverType: 'cx22',
    image: 'debian-12',
    location: 'fsn1',
    userData: '#!/bin/sh\nexec /opt/nodeharbor/agent --bootstrap one-time-token\n',
    labels: { 'managed-by': 'nodeharbor', 'nodeharbor.service_id': SERVICE },
    sshKeys: ['operator', '4711'],
    firewalls: ['nodeharbor-nodes', '77'],
    ...overrides,
  });

  /** The call's rejection: a ProviderError whose message holds no token. */
  async function refusal(p: Promise<unknown>, tokens: string[] = [hz.token]): Promise<ProviderError> {
    const e = await p.then(
      () => {
        throw new Error('expected a ProviderError, the call succeeded');
      },
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ProviderError);
    for (const t of tokens) expect((e as ProviderError).message).not.toContain(t);
    return e as ProviderError;
  }

  const actionsOf = (command: string) => [...hz.actions.values()].filter((a) => a.command === command);
  const sent = (method: string, path: RegExp) => hz.requests.filter((r) => r.method === method && path.test(r.path));

  it('creates a server with the body Hetzner expects and polls its actions to success', async () => {
    const m = await provider.create(spec());

    const [post, ...more] = sent('POST', /^\/v1\/servers$/);
    expect(more).toHaveLength(0);
    expect(post!.body).toEqual({
      name: 'nh-0123456789ab',
      server_type: 'cx22',
      image: 'debian-12',
      location: 'fsn1',
      user_data: spec().userData,
      labels: { 'managed-by': 'nodeharbor', 'nodeharbor.service_id': SERVICE },
      // An id goes as a number, a name as itself.
      ssh_keys: ['operator', 4711],
      // Firewalls by id only: the name was looked up.
      firewalls: [{ firewall: 38 }, { firewall: 77 }],
      start_after_create: true,
      public_net: { enable_ipv4: true, enable_ipv6: true },
    });
    expect(post!.headers['content-type']).toBe('application/json');
    expect(sent('GET', /^\/v1\/firewalls\?/).map((r) => r.path)).toEqual(['/v1/firewalls?name=nodeharbor-nodes']);

    // create_server and the start_server of start_after_create, each polled until it ended.
    for (const command of ['create_server', 'start_server']) {
      const [a] = actionsOf(command);
      expect(a!.status).toBe('success');
      expect(sent('GET', new RegExp(`^/v1/actions/${a!.id}$`))).toHaveLength(3);
    }

    const v = hz.servers.get(Number(m.id))!;
    expect(m).toEqual({
      id: String(v.id),
      name: 'nh-0123456789ab',
      status: 'running',
      location: 'fsn1',
      ipv4: v.ipv4,
      labels: { 'managed-by': 'nodeharbor', 'nodeharbor.service_id': SERVICE },
      created: v.created,
    });
    expect(m.ipv4).toMatch(/^203\.0\.113\.\d+$/);
    expect(booted).toEqual([{ id: m.id, name: m.name, userData: spec().userData, labels: m.labels }]);
  });

  it('gets a server, and null for one Hetzner does not have', async () => {
    const v = hz.addServer({ name: 'made-in-the-console', location: 'hel1', labels: { team: 'ops' }, ipv4: null });
    expect(await provider.get(String(v.id))).toEqual({
      id: String(v.id),
      name: 'made-in-the-console',
      status: 'running',
      location: 'hel1',
      ipv4: null,
      labels: { team: 'ops' },
      created: v.created,
    });
    expect(await provider.get('999999')).toBeNull();
    expect(sent('GET', /^\/v1\/servers\/999999$/)).toHaveLength(1);
  });

  it('lists the servers carrying all the labels, across pages of 50', async () => {
    for (let i = 0; i < 120; i++) hz.addServer({ name: `n${i}`, labels: { 'managed-by': 'nodeharbor', 'nodeharbor.service_id': `s${i}` } });
    for (let i = 0; i < 5; i++) hz.addServer({ name: `other${i}`, labels: { 'managed-by': 'someone-else' } });
    hz.addServer({ name: 'unlabelled' });

    const all = await provider.list({ 'managed-by': 'nodeharbor' });
    expect(all.map((m) => m.name)).toEqual(Array.from({ length: 120 }, (_, i) => `n${i}`));
    const asked = sent('GET', /^\/v1\/servers\?/).map((r) => Object.fromEntries(new URL(r.path, 'http://x').searchParams));
    expect(asked).toEqual([1, 2, 3].map((page) => ({ label_selector: 'managed-by==nodeharbor', page: String(page), per_page: '50' })));

    const one = await provider.list({ 'managed-by': 'nodeharbor', 'nodeharbor.service_id': 's7' });
    expect(one.map((m) => m.name)).toEqual(['n7']);
    expect(new URL(hz.requests.at(-1)!.path, 'http://x').searchParams.get('label_selector')).toBe('managed-by==nodeharbor,nodeharbor.service_id==s7');
  });

  it('deletes a server and waits for its action; a server that is not there is done', async () => {
    const m = await provider.create(spec());
    await provider.delete(m.id);
    const [del] = actionsOf('delete_server');
    expect(del!.status).toBe('success');
    expect(sent('GET', new RegExp(`^/v1/actions/${del!.id}$`))).toHaveLength(3);
    expect(deleted).toEqual([m.id]);
    expect(await provider.get(m.id)).toBeNull();

    await provider.delete(m.id);
    expect(sent('DELETE', new RegExp(`^/v1/servers/${m.id}$`))).toHaveLength(2);
    expect(actionsOf('delete_server')).toHaveLength(1);
  });

  it('powers a server off and on, waiting for each action; a server already off is done', async () => {
    const m = await provider.create(spec());
    await provider.powerOff(m.id);
    expect((await provider.get(m.id))!.status).toBe('off');
    await provider.powerOff(m.id);
    expect((await provider.get(m.id))!.status).toBe('off');
    await provider.powerOn(m.id);
    expect((await provider.get(m.id))!.status).toBe('running');

    expect(sent('POST', /\/actions\/power(on|off)$/).map((r) => r.path)).toEqual([
      `/v1/servers/${m.id}/actions/poweroff`,
      `/v1/servers/${m.id}/actions/poweroff`,
      `/v1/servers/${m.id}/actions/poweron`,
    ]);
    expect([...hz.actions.values()].filter((a) => a.command.endsWith('_server')).every((a) => a.status === 'success')).toBe(true);
    expect(powered).toEqual([
      [m.id, false],
      [m.id, true],
    ]);
    expect(await refusal(provider.powerOn('424242'))).toMatchObject({ kind: 'not_found', code: 'not_found' });
  });

  it('a 429 is rate_limited, retryAt when one request is back (or the whole budget, if sooner)', async () => {
    // 3600 an hour: one more request a second, long before the full reset in 10 minutes.
    hz.rateLimit(1, { reset: new Date(Date.now() + 600_000), limit: 3600 });
    const before = Date.now();
    const e = await refusal(provider.get('1'));
    expect(e).toMatchObject({ kind: 'rate_limited', code: 'rate_limit_exceeded' });
    expect(e.retryAt!.getTime()).toBeGreaterThanOrEqual(before + 1000);
    expect(e.retryAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

    // 60 an hour: one a minute, so a reset in 5 s comes first. RateLimit-Reset is in whole seconds.
    const reset = new Date(Math.floor(Date.now() / 1000 + 5) * 1000);
    hz.rateLimit(1, { reset, limit: 60 });
    expect((await refusal(provider.list({}))).retryAt).toEqual(reset);
  });

  it('an action polled through a rate limit and a passing failure still ends, with one create', async () => {
    hz.rateLimit(2, { reset: new Date(), path: /^\/actions\// });
    hz.fail.errors.push({ status: 503, code: 'maintenance', message: 'Cannot perform operation due to maintenance', path: /^\/actions\// });
    const m = await provider.create(spec());
    expect(m.status).toBe('running');
    expect(hz.fail.errors).toHaveLength(0);
    expect(sent('POST', /^\/v1\/servers$/)).toHaveLength(1);
  });

  it('no capacity in a location is capacity, and the next location makes the server', async () => {
    hz.fail.capacityIn.add('fsn1');
    expect(await refusal(provider.create(spec()))).toMatchObject({ kind: 'capacity', code: 'resource_unavailable' });
    hz.fail.errors.push({ status: 422, code: 'placement_error', message: 'An error during the placement occurred', path: /^\/servers$/ });
    expect(await refusal(provider.create(spec({ location: 'hel1' })))).toMatchObject({ kind: 'capacity', code: 'placement_error' });
    expect(hz.servers.size).toBe(0);

    const m = await provider.create(spec({ location: 'nbg1' }));
    expect(m).toMatchObject({ location: 'nbg1', status: 'running' });
  });

  it("an action that ends in error throws with the action's code and message", async () => {
    hz.fail.nextAction = { code: 'action_failed', message: 'Action failed' };
    const e = await refusal(provider.create(spec()));
    expect(e.code).toBe('action_failed');
    expect(e.message).toContain('create_server');
    expect(e.message).toContain('Action failed');
    expect(actionsOf('create_server')[0]!.status).toBe('error');
  });

  it('an action that does not end within actionTimeoutMs is unavailable', async () => {
    hz.actionPolls = 1_000_000;
    const impatient = createHetznerProvider({ token: hz.token, baseUrl: hz.url, pollMs: 5, actionTimeoutMs: 100 });
    expect(await refusal(impatient.create(spec()))).toMatchObject({ kind: 'unavailable', code: 'action_timeout' });
  });

  it("Hetzner's refusals map to what the caller does about them", async () => {
    await provider.create(spec());
    expect(await refusal(provider.create(spec()))).toMatchObject({ kind: 'invalid', code: 'uniqueness_error' });
    expect(await refusal(provider.create(spec({ name: 'not a hostname' })))).toMatchObject({ kind: 'invalid', code: 'invalid_input' });
    expect(await refusal(provider.create(spec({ name: 'x', firewalls: ['no-such-firewall'] })))).toMatchObject({ kind: 'invalid' });
    hz.fail.errors.push({ status: 403, code: 'forbidden', message: 'insufficient permissions' });
    expect(await refusal(provider.list({}))).toMatchObject({ kind: 'unauthorized', code: 'forbidden' });
    hz.fail.errors.push({ status: 503, code: 'maintenance', message: 'Cannot perform operation due to maintenance' });
    expect(await refusal(provider.list({}))).toMatchObject({ kind: 'unavailable', code: 'maintenance' });
  });

  it('a wrong token is unauthorized, and neither token is in the message', async () => {
    const wrongToken = `wrong-${hz.token.slice(6)}`;
    const wrong = createHetznerProvider({ token: wrongToken, baseUrl: hz.url, pollMs: 5 });
    const e = await refusal(wrong.list({}), [hz.token, wrongToken]);
    expect(e).toMatchObject({ kind: 'unauthorized', code: 'unauthorized' });
    expect(hz.requests.every((r) => !JSON.stringify(r).includes(wrongToken))).toBe(true);
  });

  it('a token that an answer echoes is not in the thrown message', async () => {
    hz.fail.errors.push({ status: 500, code: 'server_error', message: `upstream saw Authorization: Bearer ${hz.token}` });
    const e = await refusal(provider.get('1'));
    expect(e).toMatchObject({ kind: 'unavailable', code: 'server_error' });
    expect(e.message).toContain('Bearer [token]');

    hz.fail.nextAction = { code: 'action_failed', message: `token ${hz.token} was refused` };
    expect((await refusal(provider.create(spec()))).message).toContain('token [token] was refused');
  });

  it('a Hetzner that never answers is unavailable once the request deadline passes', async () => {
    hz.fail.hang = true;
    const quick = createHetznerProvider({ token: hz.token, baseUrl: hz.url, requestTimeoutMs: 200 });
    const e = refusal(quick.get('1'));
    expect(await resolvesWithin(e, 10_000)).toBe(true);
    expect(await e).toMatchObject({ kind: 'unavailable', code: 'request_timeout' });
    expect(hz.requests).toHaveLength(1);
  });

  it('a Hetzner that cannot be reached, or answers a page that is not JSON, is unavailable', async () => {
    const gone = await startHetznerStandIn();
    await gone.close();
    const unreachable = createHetznerProvider({ token: hz.token, baseUrl: gone.url });
    expect(await refusal(unreachable.get('1'))).toMatchObject({ kind: 'unavailable', code: 'network_error' });

    const proxy = createHetznerProvider({
      token: hz.token,
      baseUrl: hz.url,
      fetch: () => Promise.resolve(new Response('<html>502 Bad Gateway</html>', { status: 502, headers: { 'Content-Type': 'text/html' } })),
    });
    expect(await refusal(proxy.get('1'))).toMatchObject({ kind: 'unavailable', code: 'http_502' });
  });
});
