// Starts the standalone server (transports/bayeux-standalone, built by Maven) as a child process on a free port of
// 127.0.0.1, and stops it by its PID. Its output goes to target/server-logs/ for post-mortems.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const PACKAGE_DIR = resolve(HERE, '..', '..');
export const REPO_DIR = resolve(PACKAGE_DIR, '..');
const STANDALONE = join(REPO_DIR, 'transports', 'bayeux-standalone', 'target');
const LOG_DIR = join(PACKAGE_DIR, 'target', 'server-logs');
const READY = /^Listening on (http:\/\/\S+?)\/ \(Bayeux endpoint (\S+)\)/m;
let runs = 0;

/**
 * @typedef {object} RunningServer
 * @property {string} base e.g. http://127.0.0.1:40123
 * @property {string} url the Bayeux endpoint
 * @property {number} port
 * @property {number} pid
 * @property {() => Promise<void>} stop
 */

/**
 * @param {object} [options]
 * @param {number} [options.port] 0 for a free one
 * @param {string[]} [options.args] more command-line arguments (--set, --extensions, --demo)
 * @param {number} [options.startTimeout]
 * @returns {Promise<RunningServer>}
 */
export async function startServer({ port = 0, args = [], startTimeout = 30000 } = {}) {
  const classpathFile = join(STANDALONE, 'runtime-classpath.txt');
  if (!existsSync(classpathFile)) {
    throw new Error(`The server is not built: run mvn -pl transports/bayeux-standalone -am package (missing ${classpathFile})`);
  }
  const classpath = `${join(STANDALONE, 'classes')}:${readFileSync(classpathFile, 'utf8').trim()}`;
  mkdirSync(LOG_DIR, { recursive: true });
  const name = `${String(++runs).padStart(3, '0')}-${process.pid}-${port}`;
  const log = createWriteStream(join(LOG_DIR, `${name}.log`));
  const javaOpts = (process.env.JAVA_OPTS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn('java', [...javaOpts, '-cp', classpath, 'org.bayeux.standalone.StandaloneServer',
    '--host', '127.0.0.1', '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
  const ready = await new Promise((resolveReady, rejectReady) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectReady(new Error(`The server did not start within ${startTimeout} ms; see ${LOG_DIR}/${name}.log`));
    }, startTimeout);
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      output += chunk;
      const match = READY.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveReady({ base: match[1], url: match[2] });
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rejectReady(new Error(`The server exited (${code ?? signal}) before listening; see ${LOG_DIR}/${name}.log`));
    });
  });
  const actualPort = Number(new URL(ready.base).port);
  let stopped;
  return {
    base: ready.base,
    url: ready.url,
    port: actualPort,
    pid: /** @type {number} */ (child.pid),
    stop() {
      if (!stopped) {
        // By PID, and only this one: SIGKILL is what a crash or a pulled plug looks like to the clients.
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(/** @type {number} */ (child.pid), 'SIGKILL');
        }
        stopped = exited.then(() => { log.end(); });
      }
      return stopped;
    },
  };
}
