import { ROOT } from '../../src/server/paths';
// @ts-expect-error: a plain .mjs helper shared with npm start, without type declarations
import { buildIfStale } from '../../scripts/source-stamp.mjs';

/** One build of the app for every browser test, made only when the sources changed since the last. */
export default function setup(): void {
  if (!(buildIfStale as (root: string) => boolean)(ROOT)) throw new Error('npm run build failed: the browser tests need the built app');
}
