// The npm package as a user gets it: `npm pack` of a fresh copy of the sources (no dist/, no LICENSE: prepack must
// make them), the tarball installed offline into empty applications (ES module, CommonJS, TypeScript with
// `tsc --strict` and NodeNext resolution, .mts and .cts), each of which then talks to a running server: handshake,
// subscribe, publish, receive its own message.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

import { PACKAGE_DIR, REPO_DIR, startServer } from '../helpers/server.js';

const run = promisify(execFile);
const TIMEOUT = 120000;
const TSC = join(PACKAGE_DIR, 'node_modules', 'typescript', 'bin', 'tsc');

// npm as run by `npm test` passes its configuration down in npm_config_* variables; the nested npm gets a clean one.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

/** Runs a command, failing with its output. */
async function exec(file, args, cwd) {
  try {
    return await run(file, args, { cwd, env, timeout: TIMEOUT, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`,
      { cause: error });
  }
}

// What every application does with the package; `load` is how it gets the package's exports.
const SCENARIO = (channel) => `
  const client = new BayeuxClient({ url: process.argv[2], logLevel: 'error' });
  const handshake = await client.handshake();
  if (!handshake.successful) throw new Error('handshake failed: ' + JSON.stringify(handshake));
  let resolveReceived: (data: unknown) => void = () => {};
  const received = new Promise((resolve) => { resolveReceived = resolve; });
  const subscription = client.subscribe('${channel}', (message) => resolveReceived(message.data));
  const subscribed = await subscription.ready;
  if (!subscribed.successful) throw new Error('subscribe failed: ' + JSON.stringify(subscribed));
  const published = await client.publish('${channel}', { from: '${channel}' });
  if (!published.successful) throw new Error('publish failed: ' + JSON.stringify(published));
  const data = await received;
  const status: StatusName = client.getStatus();
  await client.disconnect();
  console.log(JSON.stringify({ received: data, status, after: client.getStatus() }));
`;
const untyped = (source) => source.replace(/: \(data: unknown\) => void/, '').replace(/: StatusName/, '');

const APPS = {
  esm: {
    'app.mjs': `import { BayeuxClient } from 'bayeux-js-client';
${untyped(SCENARIO('/package/esm'))}`,
  },
  cjs: {
    'app.cjs': `const { BayeuxClient } = require('bayeux-js-client');
if (!require.resolve('bayeux-js-client').endsWith('dist/bayeux.cjs')) throw new Error(require.resolve('bayeux-js-client'));
(async () => {${untyped(SCENARIO('/package/cjs'))}})().catch((error) => { console.error(error); process.exitCode = 1; });`,
  },
  ts: {
    // No @types/node in these projects: the applications declare the little of Node.js they use.
    'app.mts': `import { BayeuxClient, type StatusName } from 'bayeux-js-client';
declare const process: { argv: string[] };
// @ts-expect-error: the declarations are real types, not any
new BayeuxClient(42);
${SCENARIO('/package/mts')}`,
    'app.cts': `import bayeux = require('bayeux-js-client');
declare const process: { argv: string[] };
const { BayeuxClient } = bayeux;
type StatusName = bayeux.StatusName;
// @ts-expect-error: the declarations are real types, not any
bayeux.isValidChannel(42);
(async () => {${SCENARIO('/package/cts')}})().catch((error: unknown) => { console.error(error); throw error; });`,
    // The classic scripts declare the global Bayeux; type-checked only (they are for <script> tags).
    'page.mts': `import 'bayeux-js-client/dist/bayeux.min.js';
import type { BayeuxClient as Client } from 'bayeux-js-client/dist/bayeux.mjs';
const client: Client = new Bayeux.BayeuxClient({ url: '/bayeux' });
const ok: boolean = Bayeux.isValidChannel('/a/b');
export { client, ok };`,
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022', 'DOM'],
        types: [], skipLibCheck: false, outDir: 'out',
      },
      files: ['app.mts', 'app.cts', 'page.mts'],
    }),
  },
};

describe('the npm package', { timeout: 10 * TIMEOUT }, () => {
  let work;
  let server;
  let tarball;
  let packed;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'bayeux-package-'));
    // A fresh clone: the sources only (no dist/, no LICENSE in the package), and the repository's LICENSE above it.
    const clone = join(work, 'clone', 'bayeux-js-client');
    for (const entry of ['package.json', 'package-lock.json', 'README.md', 'src', 'types', 'scripts']) {
      cpSync(join(PACKAGE_DIR, entry), join(clone, entry), { recursive: true });
    }
    cpSync(join(REPO_DIR, 'LICENSE'), join(work, 'clone', 'LICENSE'));
    symlinkSync(join(PACKAGE_DIR, 'node_modules'), join(clone, 'node_modules'), 'dir');
    const packs = join(work, 'packs');
    mkdirSync(packs);
    const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', packs], clone);
    // prepack's own output comes before npm's JSON
    [packed] = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1));
    tarball = join(packs, packed.filename);
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs the builds, their declarations, the README and the LICENSE, and nothing of the repository', () => {
    const files = packed.files.map((file) => file.path).sort();
    for (const file of ['LICENSE', 'README.md', 'package.json', 'src/index.js', 'types/index.d.ts',
      'dist/bayeux.mjs', 'dist/bayeux.cjs', 'dist/bayeux.js', 'dist/bayeux.min.js',
      'dist/bayeux.d.mts', 'dist/bayeux.d.cts', 'dist/bayeux.d.ts']) {
      assert.ok(files.includes(file), `${file} is missing from ${files.join(', ')}`);
    }
    assert.deepEqual(files.filter((file) => /^(test|scripts|node_modules|target)\//.test(file) || file.endsWith('.tgz')), []);
    assert.match(readFileSync(join(REPO_DIR, 'LICENSE'), 'utf8'), /Apache License/);
    // Every target of the exports map is in the tarball, and every path has its declarations.
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
    const targets = (value) => (typeof value === 'string' ? [value] : Object.values(value).flatMap(targets));
    for (const [path, value] of Object.entries(manifest.exports)) {
      for (const target of targets(value)) {
        assert.ok(files.includes(target.replace(/^\.\//, '')), `${path}: ${target} is not packed`);
      }
      if (path !== './package.json') {
        assert.ok(JSON.stringify(value).includes('"types"'), `${path} has no types`);
      }
    }
    assert.ok(manifest.exports['.'].require, 'no require condition');
  });

  it('links its README to absolute addresses, which work outside the repository', async () => {
    const dir = await install('readme');
    const readme = readFileSync(join(dir, 'node_modules', 'bayeux-js-client', 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    assert.ok(links.length > 0);
    for (const link of links) {
      assert.match(link, /^https:\/\//, `relative link ${link}`);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', 'bayeux-js-client', 'package.json'), 'utf8'));
    assert.equal(manifest.repository.directory, 'bayeux-js-client');
    assert.match(manifest.bugs.url, /^https:\/\//);
    assert.match(manifest.homepage, /^https:\/\//);
  });

  it('works with import in an ES module application', async () => {
    const dir = await install('esm', APPS.esm);
    assert.deepEqual(await runApp(dir, 'app.mjs'), { received: { from: '/package/esm' }, status: 'connected', after: 'disconnected' });
  });

  it('works with require() in a CommonJS application', async () => {
    const dir = await install('cjs', APPS.cjs);
    assert.deepEqual(await runApp(dir, 'app.cjs'), { received: { from: '/package/cjs' }, status: 'connected', after: 'disconnected' });
  });

  it('type-checks with tsc --strict (NodeNext: .mts, .cts and the global of the classic scripts) and runs', async () => {
    const dir = await install('ts', APPS.ts);
    await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], dir);
    assert.deepEqual(await runApp(dir, join('out', 'app.mjs')), { received: { from: '/package/mts' }, status: 'connected', after: 'disconnected' });
    assert.deepEqual(await runApp(dir, join('out', 'app.cjs')), { received: { from: '/package/cts' }, status: 'connected', after: 'disconnected' });
  });

  /** An empty application with the tarball installed (offline: npm must find everything in the tarball). */
  async function install(name, files = {}) {
    const dir = join(work, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `app-${name}`, version: '1.0.0', private: true }));
    await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], dir);
    for (const [file, content] of Object.entries(files)) {
      writeFileSync(join(dir, file), content);
    }
    return dir;
  }

  async function runApp(dir, file) {
    const { stdout } = await exec(process.execPath, ['--experimental-websocket', '--no-warnings', file, server.url], dir);
    return JSON.parse(stdout.trim().split('\n').pop());
  }
});
