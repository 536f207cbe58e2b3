import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The test machine: a Docker image that plays a fresh Debian 12 cloud server booting its user
 * data. It is made offline (`docker import`) of this machine's files: busybox-static as /bin/sh
 * and the usual commands, Debian's curl and jq with the shared libraries ldd names and the CA
 * certificates, and Debian's dash, which becomes /bin/sh when the container is started with
 * MACHINE_SH=dash (a Debian 12 server's /bin/sh is dash; the agent must run under both). Stand-ins (test/machines/standins/) replace only what needs the internet or an
 * init system: apt-get, systemctl, and the boot that runs the user data as cloud-init does. Gala's
 * software is not in it: the user data downloads the stand-in's tarball (gala-node-standin.ts).
 */
export const MACHINE_IMAGE = 'nodeharbor-test/machine:debian12';

/** Labelled on the image: the hash of everything it is made of, so that a change makes it again. */
const VERSION_LABEL = 'nodeharbor.test-machine-image';
const BUSYBOX = '/bin/busybox';
const STANDINS = join(import.meta.dirname, 'standins');
/** The real binaries, behind argv-recorder (it records their command lines, as /proc shows them). */
const RECORDED = ['/usr/bin/curl', '/usr/bin/jq'];
const CA_CERTIFICATES = '/etc/ssl/certs/ca-certificates.crt';
/** Debian's /bin/sh: the machine runs its scripts with it when started with MACHINE_SH=dash (standins/cloud-init). */
const DASH = '/usr/bin/dash';
/** Where the user data is, as cloud-init keeps it: the test copies it in before starting the machine. */
export const USER_DATA_PATH = '/var/lib/cloud/instance/scripts/part-001';

const sharedLibraries = (binary: string): string[] => [...execFileSync('ldd', [binary], { encoding: 'utf8' }).matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]!);

function imageVersion(): string | undefined {
  const r = spawnSync('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${VERSION_LABEL}"}}`, MACHINE_IMAGE], { encoding: 'utf8' });
  const v = r.stdout.trim();
  return r.status === 0 && v !== '' && v !== '<no value>' ? v : undefined;
}

/**
 * Imports MACHINE_IMAGE unless the engine has it made of the same files (one cached image,
 * replaced when its inputs change). Synchronous; asks no registry for anything.
 */
export function importMachineImage(): void {
  if (!existsSync(BUSYBOX) || readFileSync(BUSYBOX).subarray(0, 4096).includes('/ld-')) {
    throw new Error(`The test machine needs ${BUSYBOX} from Debian's busybox-static: run \`apt-get install -y busybox-static\``);
  }
  const binaries = [...RECORDED, DASH].map((b) => realpathSync(b));
  const libraries = [...new Set([...RECORDED, DASH].flatMap(sharedLibraries))];
  const standins = ['apt-get', 'systemctl', 'cloud-init', 'argv-recorder'];
  const hash = createHash('sha256');
  for (const f of [BUSYBOX, ...binaries, ...libraries, CA_CERTIFICATES, ...standins.map((s) => join(STANDINS, s))]) {
    hash.update(f).update('\0').update(readFileSync(f)).update('\0');
  }
  const version = hash.digest('hex').slice(0, 16);
  const built = imageVersion();
  if (built === version) return;
  // Only an image of ours is replaced: one with our label.
  if (built !== undefined) spawnSync('docker', ['rmi', '-f', MACHINE_IMAGE], { stdio: 'ignore' });

  const root = mkdtempSync(join(tmpdir(), 'nh-test-machine-'));
  try {
    chmodSync(root, 0o755);
    const put = (from: string, to: string, mode?: number) => {
      mkdirSync(join(root, dirname(to)), { recursive: true });
      copyFileSync(realpathSync(from), join(root, to));
      if (mode !== undefined) chmodSync(join(root, to), mode);
    };
    put(BUSYBOX, '/bin/busybox', 0o755);
    for (const applet of execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n')) {
      if (applet && applet !== 'busybox') symlinkSync('busybox', join(root, 'bin', applet));
    }
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    symlinkSync('/bin/busybox', join(root, 'usr/bin/env'));
    for (const b of RECORDED) {
      const name = b.split('/').pop()!;
      put(b, `/usr/lib/nodeharbor-test/${name}`, 0o755);
      put(join(STANDINS, 'argv-recorder'), b, 0o755);
    }
    put(DASH, DASH, 0o755);
    for (const lib of libraries) put(lib, lib);
    put(CA_CERTIFICATES, CA_CERTIFICATES);
    put(join(STANDINS, 'apt-get'), '/usr/bin/apt-get', 0o755);
    put(join(STANDINS, 'systemctl'), '/usr/bin/systemctl', 0o755);
    put(join(STANDINS, 'cloud-init'), '/usr/lib/nodeharbor-test/boot', 0o755);
    for (const d of ['etc/systemd/system', 'var/lib/cloud/instance/scripts', 'var/log', 'run', 'root', 'usr/local/bin', 'usr/local/sbin', 'usr/sbin', 'sbin']) {
      mkdirSync(join(root, d), { recursive: true });
    }
    mkdirSync(join(root, 'tmp'));
    chmodSync(join(root, 'tmp'), 0o1777);
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
    const tar = join(tmpdir(), `${root.split('/').pop()}.tar`);
    try {
      execFileSync('tar', ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-cf', tar, '.']);
      const changes = [
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'CMD ["/usr/lib/nodeharbor-test/boot"]',
        `LABEL ${VERSION_LABEL}=${version}`,
      ];
      execFileSync('docker', ['import', ...changes.flatMap((c) => ['-c', c]), tar, MACHINE_IMAGE], { stdio: ['ignore', 'ignore', 'inherit'] });
    } finally {
      rmSync(tar, { force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
