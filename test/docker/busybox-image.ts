import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Debian's busybox-static: one static binary, so an image needs nothing else. */
const BUSYBOX = '/bin/busybox';
/** The commands a test image's scripts and the tests' `docker exec` use, as links to busybox. */
const APPLETS = ['sh', 'cat', 'sleep'];
/** Labelled on the image, so that an image built from other files is built again. */
const VERSION_LABEL = 'nodeharbor.test-image';

/** The version label of `tag` when it is an image of importBusyboxImage's; undefined for another image, or none. */
function testImageVersion(tag: string): string | undefined {
  const built = spawnSync('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${VERSION_LABEL}"}}`, tag], { encoding: 'utf8' });
  const version = built.stdout.trim();
  return built.status === 0 && version !== '' && version !== '<no value>' ? version : undefined;
}

/** Whether `tag` is an image of importBusyboxImage's (any version): one the tests may replace or remove. */
export const isTestImage = (tag: string): boolean => testImageVersion(tag) !== undefined;

/**
 * Imports `tag` with `docker import` from a busybox-static root file system: /bin/busybox, /bin/sh,
 * /bin/cat and /bin/sleep linked to it, and `files` (path in the image → an executable script), with the
 * Dockerfile instructions `changes` (ENTRYPOINT, CMD). Offline and synchronous; does nothing when
 * the engine has this version of it.
 */
export function importBusyboxImage(tag: string, files: Readonly<Record<string, string>>, changes: readonly string[]): void {
  const hash = createHash('sha256');
  for (const [path, content] of Object.entries(files).sort()) hash.update(path).update('\0').update(content).update('\0');
  const version = hash.update(changes.join('\n')).digest('hex').slice(0, 16);
  if (testImageVersion(tag) === version) return;
  if (!existsSync(BUSYBOX)) throw new Error(`The test images need ${BUSYBOX} from Debian's busybox-static: run \`apt-get install -y busybox-static\``);
  // A dynamically linked busybox (Debian's busybox package) names its loader near the start of the file: it cannot run alone.
  if (readFileSync(BUSYBOX).subarray(0, 4096).includes('/ld-')) {
    throw new Error(`${BUSYBOX} is dynamically linked: the test images need busybox-static (\`apt-get install -y busybox-static\`)`);
  }
  const root = mkdtempSync(join(tmpdir(), 'nh-test-image-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    chmodSync(join(root, 'bin', 'busybox'), 0o755);
    for (const applet of APPLETS) symlinkSync('busybox', join(root, 'bin', applet));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, dirname(path)), { recursive: true });
      writeFileSync(join(root, path), content, { mode: 0o755 });
    }
    const tar = join(root, 'rootfs.tar');
    const top = [...new Set(['bin', ...Object.keys(files).map((p) => p.split('/')[0]!)])];
    execFileSync('tar', ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-cf', tar, ...top]);
    const args = [...changes, `LABEL ${VERSION_LABEL}=${version}`].flatMap((c) => ['-c', c]);
    execFileSync('docker', ['import', ...args, tar, tag], { stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
