import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../src/server/paths';

describe('starting with a bad configuration', () => {
  it('stops with exit code 1 and one line per bad variable, before opening anything', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, PORT: 'abc', DATABASE_URL: 'mysql://root:secret@db/x', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Invalid configuration:');
    expect(r.stderr).toContain('  - PORT must be a whole number from 0 to 65535, got "abc"');
    expect(r.stderr).toContain('  - DATABASE_URL must be a postgres: or postgresql: URL, got "mysql://root:***@db/x"');
    expect(r.stderr).toMatch(/ {2}- LOG_LEVEL: /);
    expect(r.stderr).not.toContain('secret');
  });
});
