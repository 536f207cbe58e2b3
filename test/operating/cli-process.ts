import { spawn } from 'node:child_process';
import { ROOT } from '../../src/server/paths';
import { serverEntry } from '../helpers/server-build';

export type CliRun = { code: number | null; stdout: string; stderr: string };

/**
 * The CLI as its own process (the built `cli.js`, as the image runs it and as `npm run cli` runs
 * its sources), in `cwd`, with only PATH and `env` from the environment.
 */
export function runCli(args: string[], env: Record<string, string>, cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [serverEntry('cli'), ...args], {
      cwd,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
