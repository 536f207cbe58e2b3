import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../src/server/paths';
import { startLocalCloud } from './local-cloud';

// npm run demo:machines: NodeHarbor as `npm start` runs it, with Town Star nodes on machines of
// their own rented from this machine's Hetzner stand-in (local-cloud.ts), whose servers are
// containers that run the real boot script and agent. It needs a Docker Engine (run it as root),
// and keeps its own database (data/demo-machines) so that npm start's is left alone. Ctrl-C ends
// it and removes the servers; started again, the reconciler makes the active nodes' servers anew.

const local = await startLocalCloud('nh-demo');
console.log(`The Hetzner stand-in answers at ${local.cloud.url}; its servers are containers named nh-demo-…`);
const server = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
  stdio: 'inherit',
  env: {
    DATA_DIR: join(ROOT, 'data/demo-machines'),
    ...process.env,
    PROVISIONER: 'docker',
    // Only Town Star runs on machines; the Master Node needs a Swarm, which the demo does not ask for.
    SWARM: 'off',
    ...local.env,
    MACHINE_HEARTBEAT_SECONDS: '5',
  },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => {
  void local.close().then(() => process.exit(code ?? 0));
});
