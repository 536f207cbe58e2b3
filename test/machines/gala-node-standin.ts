import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in for Gala's node software v3, as a machine downloads it: `gala-node-v3.0.0-test.tar.gz`
 * holding `gala-node/install.sh`, which installs a `gala-node` CLI stand-in in /usr/local/bin
 * (test/machines/standins/install.sh and gala-node). What it does follows the community scripts
 * that follow Gala's Linux guide: github devaiwa/gala-setup `secondsetup.sh` and abusemydnac/ibol
 * `gala.sh` (download, `tar xzf`, `yes | gala-node/install.sh`, `config api-key`, `licenses`,
 * `workload add`, `rename`, `start`, `status`, `stop`). Its messages are its own, not Gala's.
 */
export const GALA_TARBALL_NAME = 'gala-node-v3.0.0-test.tar.gz';

/** The one well-formed key the stand-in says Gala does not know (standins/gala-node, UNKNOWN_KEY). */
export const UNKNOWN_GALA_KEY = 'R2FsYS1zdGFuZC1pbi11bmtub3duLWtleS10ZXN0eHg=';

/** Where the stand-in keeps its state on the machine: the key it was given, its name, its commands. */
export const GALA_STANDIN_DIR = '/var/lib/gala-node-standin';

/** A key the stand-in accepts: 32 random bytes in base64, 44 characters ending in "=". */
export const galaKey = (): string => randomBytes(32).toString('base64');

const STANDINS = join(import.meta.dirname, 'standins');

/** The tarball's bytes, made with tar and gzip as a vendor's would be. */
export function galaNodeTarball(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'nh-gala-standin-'));
  try {
    mkdirSync(join(dir, 'gala-node'));
    copyFileSync(join(STANDINS, 'install.sh'), join(dir, 'gala-node/install.sh'));
    copyFileSync(join(STANDINS, 'gala-node'), join(dir, 'gala-node/gala-node'));
    for (const f of ['install.sh', 'gala-node']) chmodSync(join(dir, 'gala-node', f), 0o755);
    const tarball = join(dir, GALA_TARBALL_NAME);
    execFileSync('tar', ['-C', dir, '--owner=0', '--group=0', '--numeric-owner', '-czf', tarball, 'gala-node']);
    return readFileSync(tarball);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
