import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../paths';
import { renderUserData, USER_DATA_LIMIT_BYTES, type UserDataOptions } from './user-data';

const options = (o: Partial<UserDataOptions> = {}): UserDataOptions => ({
  url: 'https://nodeharbor.example',
  apikey: 'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.c2lnbmF0dXJl',
  bootstrapToken: randomBytes(32).toString('base64url'),
  downloadUrl: 'https://links.gala.com/DownloadLinuxNode',
  sha256: 'ab'.repeat(32),
  eulaAccepted: true,
  ...o,
});

const assignment = (script: string, name: string) => new RegExp(`^${name}='(.*)'$`, 'm').exec(script)?.[1];

describe('renderUserData', () => {
  it('fills every placeholder and embeds the agent and its unit as they are', () => {
    const o = options();
    const script = renderUserData(o);
    expect(script).not.toMatch(/@@[A-Z0-9_]+@@/);
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(assignment(script, 'NODEHARBOR_URL')).toBe(o.url);
    expect(assignment(script, 'NODEHARBOR_APIKEY')).toBe(o.apikey);
    expect(assignment(script, 'BOOTSTRAP_TOKEN')).toBe(o.bootstrapToken);
    expect(assignment(script, 'GALA_NODE_DOWNLOAD_URL')).toBe(o.downloadUrl);
    expect(assignment(script, 'GALA_NODE_SHA256')).toBe(o.sha256);
    expect(assignment(script, 'GALA_EULA')).toBe('accept');
    const agent = readFileSync(join(ROOT, 'nodes/agent/nodeharbor-agent'), 'utf8');
    const unit = readFileSync(join(ROOT, 'nodes/agent/nodeharbor-agent.service'), 'utf8');
    expect(script).toContain(`<<'NODEHARBOR_AGENT_EOF'\n${agent}NODEHARBOR_AGENT_EOF\n`);
    expect(script).toContain(`<<'NODEHARBOR_UNIT_EOF'\n${unit}NODEHARBOR_UNIT_EOF\n`);
    // The shell reads it as a script: sh -n parses without running.
    const parsed = spawnSync('sh', ['-n'], { input: script, encoding: 'utf8' });
    expect(parsed.stderr).toBe('');
    expect(parsed.status).toBe(0);
  });

  it('writes anything but "accept" when the EULA is not accepted, no check for an empty SHA-256, and one trailing slash less', () => {
    const script = renderUserData(options({ eulaAccepted: false, sha256: '', url: 'https://nodeharbor.example/' }));
    expect(assignment(script, 'GALA_EULA')).not.toBe('accept');
    expect(assignment(script, 'GALA_NODE_SHA256')).toBe('');
    expect(assignment(script, 'NODEHARBOR_URL')).toBe('https://nodeharbor.example');
    expect(assignment(renderUserData(options({ sha256: 'AB'.repeat(32) })), 'GALA_NODE_SHA256')).toBe('ab'.repeat(32));
  });

  it('allows plain http on a loopback address only', () => {
    expect(() => renderUserData(options({ url: 'http://127.0.0.1:54321', downloadUrl: 'http://localhost:8080/gala.tar.gz' }))).not.toThrow();
    for (const url of ['http://nodeharbor.example', 'http://127.0.0.1.nip.io', 'http://localhost.example', 'ftp://127.0.0.1/']) {
      expect(() => renderUserData(options({ url })), url).toThrow(/url must be an https URL/);
      expect(() => renderUserData(options({ downloadUrl: url })), url).toThrow(/downloadUrl must be an https URL/);
    }
  });

  it('refuses values that could change what the script does, naming the field and never the value', () => {
    const hostile: [keyof UserDataOptions, string][] = [
      ['url', "https://x.example/'; rm -rf / #"],
      ['url', 'https://x.example/$(id)'],
      ['url', 'https://x.example/?a=b'],
      ['url', 'https://x.example/`id`'],
      ['url', 'https://x.example/\nNODEHARBOR_URL=https://evil.example'],
      ['apikey', "key'; reboot; '"],
      ['apikey', 'a b'],
      ['apikey', ''],
      ['bootstrapToken', `${'a'.repeat(42)}'`],
      ['bootstrapToken', 'a'.repeat(42)],
      ['bootstrapToken', `${'a'.repeat(42)}\n`],
      ['downloadUrl', 'https://links.gala.com/$HOME'],
      ['downloadUrl', "https://links.gala.com/x'y"],
      ['downloadUrl', 'https://links.gala.com/a b'],
      ['downloadUrl', 'https://links.gala.com/a\\b'],
      ['sha256', 'z'.repeat(64)],
      ['sha256', 'ab'.repeat(31)],
      ['sha256', `${'ab'.repeat(32)}; true`],
    ];
    for (const [field, value] of hostile) {
      let message = '';
      try {
        renderUserData(options({ [field]: value }));
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, `${field}: ${JSON.stringify(value)}`).toMatch(new RegExp(`^renderUserData: ${field} must be`));
      if (value.length > 3) expect(message).not.toContain(value);
    }
  });

  it("stays within Hetzner's 32 KiB, and says so when it would not", () => {
    expect(Buffer.byteLength(renderUserData(options()))).toBeLessThan(USER_DATA_LIMIT_BYTES);
    expect(() => renderUserData(options({ apikey: 'k'.repeat(2048), downloadUrl: `https://links.gala.com/${'p'.repeat(30_000)}` }))).toThrow(
      /renderUserData: the user data is \d+ bytes, more than Hetzner's 32 KiB/,
    );
  });
});
