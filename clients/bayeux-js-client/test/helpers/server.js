// Starts a server built by Maven as a child process on a free port of 127.0.0.1, and stops it by its PID: our
// standalone server (server/bayeux-standalone), or the real CometD 8 server (tools/bayeux-cometd-reference-server). Their output
// goes to target/server-logs/ for post-mortems.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const PACKAGE_DIR = resolve(HERE, '..', '..');
export const REPO_DIR = resolve(PACKAGE_DIR, '..', '..');
const LOG_DIR = join(PACKAGE_DIR, 'target', 'server-logs');
let runs = 0;

const OURS = {
  name: 'bayeux',
  target: join(REPO_DIR, 'server', 'bayeux-standalone', 'target'),
  mainClass: 'org.bayeux.standalone.StandaloneServer',
  module: 'server/bayeux-standalone',
  // "Listening on http://127.0.0.1:40123/ (Bayeux endpoint http://127.0.0.1:40123/bayeux)"
  ready: (output) => {
    const match = /^Listening on (http:\/\/\S+?)\/ \(Bayeux endpoint (\S+)\)/m.exec(output);
    return match && { base: match[1], url: match[2] };
  },
};

const COMETD = {
  name: 'cometd',
  target: join(REPO_DIR, 'tools', 'bayeux-cometd-reference-server', 'target'),
  mainClass: 'org.bayeux.reference.cometd.CometDReferenceServer',
  module: 'tools/bayeux-cometd-reference-server',
  // "COMETD-REFERENCE-SERVER-READY http://127.0.0.1:40123/cometd"
  ready: (output) => {
    const match = /^COMETD-REFERENCE-SERVER-READY (http:\/\/[^/\s]+)(\/\S*)$/m.exec(output);
    return match && { base: match[1], url: match[1] + match[2] };
  },
};

/**
 * @typedef {object} RunningServer
 * @property {string} base e.g. http://127.0.0.1:40123
 * @property {string} url the Bayeux endpoint
 * @property {number} port
 * @property {number} pid
 * @property {() => Promise<void>} stop
 */

const DEMO_TARGET = join(REPO_DIR, 'examples', 'bayeux-demo-chat', 'target');

/**
 * The options that run the demo chat in our standalone server, as bin/bayeux demo gives them: the chat's jar
 * (examples/bayeux-demo-chat) on --classpath, as a user's jar in apps/ is loaded; its page and the client it imports
 * (target/web) with --static; the ack extension its page asks for.
 *
 * @returns {string[]}
 */
export function demoArgs() {
  const jar = existsSync(DEMO_TARGET)
    ? readdirSync(DEMO_TARGET).find((name) => /^bayeux-demo-chat-.*\.jar$/.test(name)) : undefined;
  const web = join(DEMO_TARGET, 'web');
  if (!jar || !existsSync(join(web, 'index.html'))) {
    throw new Error(`The demo chat is not built: run mvn -pl examples/bayeux-demo-chat -am package (in ${DEMO_TARGET})`);
  }
  return ['--classpath', join(DEMO_TARGET, jar), '--static', web, '--extensions', 'ack'];
}

/**
 * Starts our standalone server.
 *
 * @param {object} [options]
 * @param {number} [options.port] 0 for a free one
 * @param {string[]} [options.args] more command-line arguments (--set, --extensions, demoArgs())
 * @param {number} [options.startTimeout]
 * @returns {Promise<RunningServer>}
 */
export function startServer(options = {}) {
  return start(OURS, options);
}

/**
 * Starts the CometD 8 reference server (unmodified CometD on Jetty 12; endpoint /cometd, service /service/echo).
 *
 * @param {object} [options]
 * @param {number} [options.port]
 * @param {string[]} [options.args] e.g. --set timeout=5000
 * @returns {Promise<RunningServer>}
 */
export function startCometD(options = {}) {
  return start(COMETD, options);
}

async function start(kind, { port = 0, args = [], startTimeout = 30000 } = {}) {
  const classpathFile = join(kind.target, 'runtime-classpath.txt');
  if (!existsSync(classpathFile)) {
    throw new Error(`The server is not built: run mvn -pl ${kind.module} -am package (missing ${classpathFile})`);
  }
  const classpath = `${join(kind.target, 'classes')}:${readFileSync(classpathFile, 'utf8').trim()}`;
  mkdirSync(LOG_DIR, { recursive: true });
  const name = `${String(++runs).padStart(3, '0')}-${kind.name}-${process.pid}-${port}`;
  const log = createWriteStream(join(LOG_DIR, `${name}.log`));
  const javaOpts = (process.env.JAVA_OPTS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn('java', [...javaOpts, '-cp', classpath, kind.mainClass,
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
      const ready = kind.ready(output);
      if (ready) {
        clearTimeout(timer);
        resolveReady(ready);
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
