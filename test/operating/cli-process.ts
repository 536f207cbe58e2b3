import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/server/paths';

// tsx as `npm run cli` loads it, found from the package root: the CLI may run in any folder.
const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** `npm run cli -- <args>` as its own process, in `cwd`, with only PATH and `env` from the environment. */
export function runCli(args: string[], env: Record<string, string>, cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, join(ROOT, 'src/server/cli.ts'), ...args], {
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
