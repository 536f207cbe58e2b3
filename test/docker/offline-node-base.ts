import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Debian's busybox-static: the base's shell and its few commands, one static binary. */
const BUSYBOX = '/bin/busybox';

/**
 * The shared libraries node loads, as ldd names them (absolute paths only; the vDSO has none), and
 * the rest of Debian's C library beside them, as in a slim image: native addons (rolldown's) load
 * librt, which node does not.
 */
function sharedLibraries(binary: string): string[] {
  const loaded = [...execFileSync('ldd', [binary], { encoding: 'utf8' }).matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]!);
  const libc = execFileSync('dpkg', ['-L', 'libc6'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => /^\/lib\/[^/]+\/lib[^/]*\.so\.\d+$/.test(f));
  return [...new Set([...loaded, ...libc])];
}

/**
 * Imports, as `tag`, a stand-in for node:22-bookworm-slim made offline from this machine: its
 * node binary with its C and C++ libraries, its npm, busybox-static as /bin/sh and the usual
 * commands, and the users root and node (1000). No registry is asked for anything.
 */
export function importOfflineNodeBase(tag: string): void {
  const node = realpathSync(process.execPath);
  const npm = join(dirname(realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())), '..');
  const root = mkdtempSync(join(tmpdir(), 'nh-offline-base-'));
  try {
    // The image's / is this folder: made 0700, which would shut every user but root out.
    chmodSync(root, 0o755);
    const put = (from: string, to: string) => {
      mkdirSync(join(root, dirname(to)), { recursive: true });
      copyFileSync(realpathSync(from), join(root, to));
    };
    put(node, '/usr/local/bin/node');
    chmodSync(join(root, 'usr/local/bin/node'), 0o755);
    for (const lib of sharedLibraries(node)) put(lib, lib);
    cpSync(npm, join(root, 'usr/local/lib/node_modules/npm'), { recursive: true, dereference: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
    put(BUSYBOX, '/bin/busybox');
    chmodSync(join(root, 'bin/busybox'), 0o755);
    for (const applet of execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n')) {
      if (applet && applet !== 'busybox') symlinkSync('busybox', join(root, 'bin', applet));
    }
    // npm's scripts start with #!/usr/bin/env node.
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    symlinkSync('/bin/busybox', join(root, 'usr/bin/env'));
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
    mkdirSync(join(root, 'root'));
    mkdirSync(join(root, 'tmp'), { mode: 0o1777 });
    chmodSync(join(root, 'tmp'), 0o1777);
    const tar = join(tmpdir(), `${root.split('/').pop()}.tar`);
    try {
      execFileSync('tar', ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-cf', tar, '.']);
      execFileSync('docker', ['import', '-c', 'ENV PATH=/usr/local/bin:/usr/bin:/bin', '-c', 'CMD ["node"]', tar, tag], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    } finally {
      rmSync(tar, { force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
