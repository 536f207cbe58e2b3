import { parseArgs } from 'node:util';
import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { CliError } from './cli/cli-error';
import type { CliValues } from './cli/command';
import { ConfigError, loadConfig } from './env';
import { createLogger } from './http/logger';

const usage = `Usage: npm run cli -- <command> [options]

${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(16)} ${c.usage}\n  ${''.padEnd(16)} ${c.summary}`)
  .join('\n')}

It works on the configured database: DATABASE_URL, else the embedded one in DATA_DIR (./data).
The embedded database is used by one process at a time: stop npm start first.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
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
  const config = loadConfig();
  const deps = await bootstrap(config, { logger: createLogger('warn') });
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
    if (e instanceof CliError || e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
    else process.stderr.write(`Failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
