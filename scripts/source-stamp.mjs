import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// What the build is made from: a change to any of these means the build is out of date.
const inputs = ['src', 'index.html', 'vite.config.ts', 'package.json', 'public', 'scripts'];

/** A hash of the build's inputs (paths, sizes and modification times), cheap enough for every start. */
export function sourceStamp(root) {
  const h = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(join(p, name));
    } else {
      h.update(`${p}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  for (const i of inputs) walk(join(root, i));
  return h.digest('hex');
}

export function buildIsCurrent(root) {
  const stamp = join(root, 'dist/.source-stamp');
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceStamp(root);
}

/**
 * Builds (scripts/build.mjs) when the build is missing or out of date; true when it is current
 * afterwards. Always a production build, whatever NODE_ENV the caller runs under (vitest sets
 * test, which would give React's development bundle).
 */
export function buildIfStale(root, { onBuild } = {}) {
  if (buildIsCurrent(root)) return true;
  onBuild?.();
  const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  return r.status === 0;
}
