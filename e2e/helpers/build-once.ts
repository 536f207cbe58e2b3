import { ROOT } from '../../src/server/paths';
import { buildIfStale } from '../../scripts/source-stamp.mjs';

/** One build of the app for every browser test, made only when the sources changed since the last. */
export default function setup(): void {
  if (!buildIfStale(ROOT)) throw new Error('npm run build failed: the browser tests need the built app');
}
