import { build } from 'esbuild';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The server's bundles (main.js, worker.js and cli.js) into `outdir`, as npm start runs them, with
 * the two files they load by path on threads of their own (passwords.ts, statement-watchdog.ts)
 * beside them. `outdir` must lie under the package root: the server finds its files from there.
 */
export async function buildServer(root, outdir) {
  await build({
    entryPoints: ['src/server/main.ts', 'src/server/worker.ts', 'src/server/cli.ts'].map((f) => join(root, f)),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'src/server/auth/password-worker.mjs'), join(outdir, 'password-worker.mjs'));
  copyFileSync(join(root, 'src/server/db/statement-watchdog-worker.mjs'), join(outdir, 'statement-watchdog-worker.mjs'));
}
