import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registryAuthFor, registryOf } from './registry-auth';

describe('registryOf', () => {
  it('names the registry as docker login does', () => {
    expect(registryOf('nodeharbor/townstar-node:1')).toBe('https://index.docker.io/v1/');
    expect(registryOf('busybox')).toBe('https://index.docker.io/v1/');
    expect(registryOf('docker.io/library/busybox')).toBe('https://index.docker.io/v1/');
    expect(registryOf('registry.example.com/townstar-node:1.4')).toBe('registry.example.com');
    expect(registryOf('localhost:5000/node:1')).toBe('localhost:5000');
    expect(registryOf('localhost/node:1')).toBe('localhost');
  });
});

describe('registryAuthFor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-docker-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it("reads what docker login stored for the image's registry, and nothing for another", () => {
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        auths: {
          'registry.example.com': { auth: b64('ops:p4ss:word') },
          'https://index.docker.io/v1/': { auth: b64('hubuser:hubpass') },
          'https://tokens.example.com': { identitytoken: 'tok' },
        },
      }),
    );
    expect(registryAuthFor(dir, 'registry.example.com/townstar-node:1')).toEqual({
      serveraddress: 'registry.example.com',
      username: 'ops',
      password: 'p4ss:word',
    });
    expect(registryAuthFor(dir, 'nodeharbor/townstar-node:1')).toEqual({
      serveraddress: 'https://index.docker.io/v1/',
      username: 'hubuser',
      password: 'hubpass',
    });
    expect(registryAuthFor(dir, 'tokens.example.com/node:1')).toEqual({ serveraddress: 'tokens.example.com', identitytoken: 'tok' });
    expect(registryAuthFor(dir, 'other.example.com/node:1')).toBeUndefined();
  });

  it('sends no credentials when there is no config or it cannot be read', () => {
    expect(registryAuthFor(join(dir, 'missing'), 'registry.example.com/x:1')).toBeUndefined();
    writeFileSync(join(dir, 'config.json'), '{not json');
    expect(registryAuthFor(dir, 'registry.example.com/x:1')).toBeUndefined();
  });
});
