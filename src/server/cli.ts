import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { describeFailure } from './cli/cli-error';
import type { CliValues } from './cli/command';
import { runInServerOrLock } from './control/control-client';
import type { FolderLock } from './db/data-folder-lock';
import { loadConfig } from './env';
import { createLogger } from './http/logger';

const usage = `Usage: npm run cli -- <command> [options]

${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(16)} ${c.usage}\n  ${''.padEnd(16)} ${c.summary}`)
  .join('\n')}

It works on the configured database: DATABASE_URL, else the embedded one in DATA_DIR (./data).
While npm start runs on the embedded database, the command runs inside it (DATA_DIR/control.sock).`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name && Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${name && name !== 'help' && name !== '--help' ? `Unknown command "${name}".\n\n` : ''}${usage}\n`);
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  let values: CliValues;
  try {
    // No option is declared `multiple`, so no value is an array.
    values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values as CliValues;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage: npm run cli -- ${name} ${command.usage}\n`);
    return 2;
  }
  for (const option of command.files ?? []) {
    const path = values[option];
    if (typeof path === 'string' && path.trim() !== '') values[option] = resolve(path.trim());
  }
  const config = loadConfig();
  let lock: FolderLock | undefined;
  if (!config.databaseUrl) {
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
