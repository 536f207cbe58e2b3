// npm run images [-- --registry <host/path>] [--only <folder>] [--push]
//
// Builds the node images of nodes/<folder>/ (README, "Running real nodes"), each tagged
// <registry>/<folder>:<the vendor's tag>-<8 characters of a hash of the folder>, so that a change
// of ours gets a tag of its own. The base image, named by the Dockerfile's FROM with its ARG
// defaults, is pulled when the engine lacks it. Its entrypoint and command are written into the
// build as vendor-entrypoint and vendor-cmd, which our entrypoint runs, and what the build used is
// labelled: org.opencontainers.image.base.name, .base.digest (the registry's digest, when the base
// came from one) and io.nodeharbor.base-image (the engine's image id). Prints the NODE_IMAGES to set.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const NODES = join(ROOT, 'nodes');

const { values: opts } = parseArgs({
  options: { registry: { type: 'string', default: 'nodeharbor' }, only: { type: 'string' }, push: { type: 'boolean', default: false } },
});

const fail = (message) => {
  process.stderr.write(`npm run images: ${message}\n`);
  process.exit(1);
};

/** Runs docker, and returns what it printed; `failure` says what could not be done, with docker's own words. */
function docker(args, failure) {
  const run = spawnSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error) fail(`docker could not be run (${run.error.message}): install Docker first`);
  if (run.status !== 0) fail(`${failure}: ${(run.stderr || run.stdout).trim()}`);
  return run.stdout.trim();
}

/** The base image a Dockerfile names: its first FROM, with the defaults of the ARGs before it. */
function baseOf(dockerfile) {
  const args = new Map();
  for (const line of readFileSync(dockerfile, 'utf8').split('\n')) {
    const arg = /^ARG\s+(\w+)=(\S+)\s*$/.exec(line);
    if (arg) args.set(arg[1], arg[2]);
    const from = /^FROM\s+(\S+)/.exec(line);
    if (from) return from[1].replace(/\$\{(\w+)\}/g, (_, name) => args.get(name) ?? fail(`${dockerfile}: no default for the ARG ${name} in FROM`));
  }
  return fail(`${dockerfile} has no FROM`);
}

/** Every file of `folder`, hashed by name and content. */
function hashOf(folder) {
  const hash = createHash('sha256');
  for (const name of readdirSync(folder).sort())
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(join(folder, name)))
      .update('\0');
  return hash.digest('hex').slice(0, 8);
}

/** One word per line, for our entrypoint's `read`; a word with a line break in it could not be read back. */
function wordsFile(words, what) {
  if (words.some((w) => w.includes('\n'))) fail(`the base image's ${what} has a line break in a word: ${JSON.stringify(words)}`);
  return words.map((w) => `${w}\n`).join('');
}

function build(folder) {
  const dir = join(NODES, folder);
  const base = baseOf(join(dir, 'Dockerfile'));
  if (spawnSync('docker', ['image', 'inspect', base], { stdio: 'ignore' }).status !== 0) {
    docker(['pull', base], `${base} could not be pulled (log in with docker login if its registry needs it)`);
  }
  const [inspected] = JSON.parse(docker(['image', 'inspect', base], `${base} could not be inspected`));
  const entrypoint = inspected.Config?.Entrypoint ?? [];
  const cmd = inspected.Config?.Cmd ?? [];
  if (!entrypoint.length && !cmd.length) fail(`${base} names no entrypoint and no command: there is nothing of the vendor's to run`);
  // Our entrypoint is a shell script: the vendor's image must have a shell.
  docker(['run', '--rm', '--network', 'none', '--entrypoint', '/bin/sh', base, '-c', 'exit 0'], `${base} has no /bin/sh to run NodeHarbor's entrypoint`);
  const repository = base.replace(/:[^/:]+$/, '');
  const digest = (inspected.RepoDigests ?? []).find((d) => d.startsWith(`${repository}@`))?.split('@')[1];
  const tag = `${opts.registry}/${folder}:${base.split(':').pop()}-${hashOf(dir)}`;

  const context = mkdtempSync(join(tmpdir(), `nh-image-${folder}-`));
  try {
    // cpSync keeps the files' modes: the entrypoint stays executable in the image.
    cpSync(dir, context, { recursive: true });
    writeFileSync(join(context, 'vendor-entrypoint'), wordsFile(entrypoint, 'entrypoint'));
    writeFileSync(join(context, 'vendor-cmd'), wordsFile(cmd, 'command'));
    const labels = {
      'org.opencontainers.image.base.name': base,
      ...(digest ? { 'org.opencontainers.image.base.digest': digest } : {}),
      'io.nodeharbor.base-image': inspected.Id,
      'io.nodeharbor.vendor-entrypoint': JSON.stringify(entrypoint),
      'io.nodeharbor.vendor-cmd': JSON.stringify(cmd),
    };
    const labelArgs = Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
    process.stdout.write(`building ${tag} from ${base}${digest ? ` (${digest})` : ''}\n`);
    docker(['build', '--pull=false', ...labelArgs, '-t', tag, context], `${tag} could not be built`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  if (opts.push) docker(['push', tag], `${tag} could not be pushed (log in with docker login ${opts.registry.split('/')[0]})`);
  const product = docker(['image', 'inspect', '--format', '{{index .Config.Labels "io.nodeharbor.product"}}', tag], `${tag} could not be inspected`);
  return { product, tag };
}

const folders = readdirSync(NODES, { withFileTypes: true })
  .filter((d) => d.isDirectory() && (!opts.only || d.name === opts.only))
  .map((d) => d.name);
if (!folders.length) fail(opts.only ? `no folder nodes/${opts.only}` : 'no folder under nodes/');
const images = Object.fromEntries(folders.map(build).map(({ product, tag }) => [product, tag]));
process.stdout.write(`\nNODE_IMAGES='${JSON.stringify(images)}'\n`);
