// A redis-server of the test's own: a free port on 127.0.0.1, a temporary directory, the append-only file synced on
// every write; stopped by its PID. Never the system service, never port 6379. Missing binary: the test is skipped,
// except under CI=true, where it fails naming the package.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** @returns {boolean} true if redis-server can be run */
export function hasRedis() {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI === 'true') {
    throw new Error('redis-server is missing: install the Debian package redis-server');
  }
  return found;
}

/** @returns {Promise<number>} a port free on 127.0.0.1 right now */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {number} [startTimeout]
 * @returns {Promise<{uri: string, port: number, pid: number, stop: () => Promise<void>}>}
 */
export async function startRedis(startTimeout = 15000) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bayeux-js-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  await new Promise((resolveReady, rejectReady) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectReady(new Error(`redis-server did not start within ${startTimeout} ms: ${output}`));
    }, startTimeout);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolveReady(undefined);
      }
    });
    exited.then(() => {
      clearTimeout(timer);
      rejectReady(new Error(`redis-server exited before it was ready: ${output}`));
    });
  });
  let stopped;
  return {
    uri: `redis://127.0.0.1:${port}`,
    port,
    pid: /** @type {number} */ (child.pid),
    stop() {
      if (!stopped) {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(/** @type {number} */ (child.pid), 'SIGTERM');
        }
        stopped = exited.then(() => rmSync(dir, { recursive: true, force: true }));
      }
      return stopped;
    },
  };
}
