import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { describeFailure } from './cli/cli-error';
import type { CliValues } from './cli/command';
import { runInServerOrLock } from './control/control-client';
import type { FolderLock } from './db/data-folder-lock';
import { holdsDatabase } from './db/pglite';
import { loadConfig } from './env';
import { createLogger } from './http/logger';

const usage = `Usage: npm run cli -- <command> [options]

${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(16)} ${c.usage}\n  ${''.padEnd(16)} ${c.summary}`)
  .join('\n')}

It works on the configured database: DATABASE_URL, else the embedded one in DATA_DIR (./data).
While npm start runs on the embedded database, the command runs inside it (DATA_DIR/control.sock).
A DATA_DIR without a database is refused: npm start makes the first one, or add --create.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name && Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${name && name !== 'help' && name !== '--help' ? `Unknown command "${name}".\n\n` : ''}${usage}\n`);
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  let values: CliValues;
  let create: boolean;
  try {
    // No option is declared `multiple`, so no value is an array. --create is every command's.
    const options = { ...command.options, create: { type: 'boolean' as const } };
    ({ create = false, ...values } = parseArgs({ args: rest, options, strict: true, allowPositionals: false }).values as CliValues & { create?: boolean });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage: npm run cli -- ${name} ${command.usage} [--create]\n`);
    return 2;
  }
  for (const option of command.files ?? []) {
    const path = values[option];
    if (typeof path === 'string' && path.trim() !== '') values[option] = resolve(path.trim());
  }
  const config = loadConfig();
  let lock: FolderLock | undefined;
  if (!config.databaseUrl) {
    // NOTE: a DATA_DIR that is not the server's (another folder, or ./data from another working
    // directory) would get a new, empty database of its own, and the command would seem to work
    // while the server never sees it. Making the first database stays npm start's, or explicit.
    if (!create && !holdsDatabase(config.dataDir)) {
      process.stderr.write(
        `No NodeHarbor database in ${resolve(config.dataDir)}. Set DATA_DIR to the folder your server uses, or pass --create to make a new one.\n`,
      );
      return 1;
    }
    const sent = { command: name!, values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string | boolean> };
    const where = await runInServerOrLock(config.dataDir, sent, { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) });
    if ('exit' in where) return where.exit;
    lock = where.lock;
  }
  const deps = await bootstrap(config, { logger: createLogger('warn'), prepared: command.asIs, lock });
  try {
    await command.run(deps, values, (line) => process.stdout.write(`${line}\n`));
    return 0;
  } finally {
    await deps.db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${describeFailure(e)}\n`);
    process.exit(1);
  },
);
