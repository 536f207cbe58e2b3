// npm start: builds what is missing or out of date, then runs the server in this process
// (so SIGTERM reaches it directly and it can shut down cleanly).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './source-stamp.mjs';

const root = join(import.meta.dirname, '..');
if (!buildIfStale(root, { onBuild: () => console.log('Building NodeHarbor (first start, or the sources changed)...') })) process.exit(1);
await import(pathToFileURL(join(root, 'dist/server/main.js')).href);
