// The standalone server's admin page (/admin) in Debian's Chromium, driven by playwright-core: the page gives the
// token, subscribes to the statistics channel and shows the numbers of the traffic that Node.js clients make; a wrong
// token is refused and shows none; on an Oort node, the page lists the other node.
//
// Waits are Playwright's auto-waiting with deadlines, never sleeps.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { chromium } from 'playwright-core';

import { ClientPool } from '../helpers/clients.js';
import { PACKAGE_DIR, REPO_DIR, startServer } from '../helpers/server.js';

const CHROMIUM = process.env.BAYEUX_CHROMIUM ?? '/usr/bin/chromium';
const WAIT = 20000;
const TOKEN = randomBytes(24).toString('hex');
const SCREENSHOT = join(PACKAGE_DIR, 'target', 'screenshots', 'admin-page.png');
const DOCS_SCREENSHOT = join(REPO_DIR, 'docs', 'images', 'admin-page.png');
// The token is given in a file the server user alone may read: the server refuses it on the command line.
const TOKEN_DIR = mkdtempSync(join(tmpdir(), 'bayeux-admin-token-'));
const TOKEN_FILE = join(TOKEN_DIR, 'admin-token');
writeFileSync(TOKEN_FILE, `${TOKEN}\n`, { mode: 0o600 });

let browser;
let server;
const pool = new ClientPool();
before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (bin/bayeux test does it)`);
  }
  [browser, server] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM, headless: true }),
    startServer({ args: ['--set', `admin.tokenFile=${TOKEN_FILE}`, '--set', 'timeout=5s'] }),
  ]);
});
after(async () => {
  await pool.disconnectAll();
  await browser?.close();
  await server?.stop();
  rmSync(TOKEN_DIR, { recursive: true, force: true });
});

/** Opens the admin page in a fresh context and gives it a token. */
async function openAdmin(base, token) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error));
  await page.goto(`${base}/admin/`);
  await page.fill('#token', token);
  await page.click('#login-form button');
  return { context, page, errors };
}

/** Waits until the page has shown at least `count` snapshots. */
async function snapshots(page, count) {
  await page.waitForFunction((n) => Number(document.body.dataset.snapshots ?? 0) >= n, count, { timeout: WAIT });
}

async function number(page, id) {
  return Number(await page.innerText(`#${id}`));
}

describe('the admin page', () => {
  it('shows live numbers after clients connect', async () => {
    // Three long-polling clients in this process, subscribed to a room, one of them publishing ten times a second.
    const users = [];
    for (let i = 0; i < 3; i++) {
      const user = pool.create(server.url, 'long-polling');
      const reply = await user.handshake();
      assert.equal(reply.successful, true);
      assert.equal((await user.subscribe('/chat/lobby', () => {}).ready).successful, true);
      users.push(user);
    }
    let sent = 0;
    const publisher = setInterval(() => {
      if (sent < 600) { // bounded: at most a minute of traffic
        users[sent++ % 3].publish('/chat/lobby', { text: `hello ${sent}` });
      }
    }, 100);
    const admin = await openAdmin(server.base, TOKEN);
    try {
      const { page } = admin;
      await page.locator('#status[data-status="connected"]').waitFor({ timeout: WAIT });
      await snapshots(page, 3);
      // Three users and the page itself; the page's WebSocket session among them.
      await page.waitForFunction(() => document.getElementById('stat-sessions').textContent === '4',
        undefined, { timeout: WAIT });
      assert.equal(await page.innerText('#transports tbody tr:nth-child(1) td:nth-child(2)'), '1', 'websocket');
      assert.equal(await page.innerText('#transports tbody tr:nth-child(2) td:nth-child(2)'), '3', 'long-polling');
      // Ten publishes a second, each delivered to three subscribers: rates above zero, the room the busiest.
      await page.waitForFunction(() => Number(document.getElementById('stat-deliveries').textContent) > 0,
        undefined, { timeout: WAIT });
      assert.ok(await number(page, 'stat-in') > 0, 'messages in per second');
      assert.ok(await number(page, 'stat-out') > 0, 'messages out per second');
      assert.equal(await number(page, 'stat-subscriptions'), 4, 'three users on the room, the page on its channel');
      await page.waitForFunction(() => document.querySelector('#busiest tbody tr td')?.textContent === '/chat/lobby',
        undefined, { timeout: WAIT });
      assert.ok(Number(await page.innerText('#busiest tbody tr td:nth-child(2)')) > 0);
      assert.equal(await page.isHidden('#cluster'), true, 'a single node shows no cluster');
      // A few more seconds of charts for the picture.
      const seen = Number(await page.evaluate(() => document.body.dataset.snapshots));
      await snapshots(page, seen + 6);
      mkdirSync(join(PACKAGE_DIR, 'target', 'screenshots'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      if (process.env.BAYEUX_UPDATE_SCREENSHOT) {
        mkdirSync(join(REPO_DIR, 'docs', 'images'), { recursive: true });
        copyFileSync(SCREENSHOT, DOCS_SCREENSHOT);
      }
      assert.deepEqual(admin.errors, []);
    } finally {
      clearInterval(publisher);
      await admin.context.close();
    }
  });

  it('refuses a wrong token and shows no number', async () => {
    const admin = await openAdmin(server.base, 'x'.repeat(TOKEN.length));
    try {
      const { page } = admin;
      await page.locator('#status[data-status="refused"]').waitFor({ timeout: WAIT });
      assert.match(await page.innerText('#banner'), /403::handshake_denied/);
      assert.equal(await page.isHidden('#dashboard'), true);
      assert.equal(await page.innerText('#stat-sessions'), '–');
      assert.equal(await page.evaluate(() => document.body.dataset.snapshots), undefined);
      assert.deepEqual(admin.errors, []);
    } finally {
      await admin.context.close();
    }
  });
});

describe('the admin page of an Oort node', () => {
  let secretDir;
  const nodes = [];
  before(async () => {
    secretDir = mkdtempSync(join(tmpdir(), 'bayeux-admin-test-'));
    const secretFile = join(secretDir, 'secret');
    writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    const args = ['--oort-url', 'http://127.0.0.1:0/bayeux', '--oort-secret-file', secretFile,
      '--set', 'oort.heartbeatInterval=500ms'];
    nodes.push(await startServer({ args: [...args, '--set', `admin.tokenFile=${TOKEN_FILE}`] }));
    nodes.push(await startServer({ args: [...args, '--oort-seeds', nodes[0].url] }));
  });
  after(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    if (secretDir) {
      rmSync(secretDir, { recursive: true, force: true });
    }
  });

  it('lists the other node', async () => {
    const admin = await openAdmin(nodes[0].base, TOKEN);
    try {
      const { page } = admin;
      await page.locator('#cluster').waitFor({ state: 'visible', timeout: WAIT });
      assert.match(await page.innerText('#cluster-kind'), /Oort/);
      await page.waitForFunction((url) => [...document.querySelectorAll('#nodes tbody tr')].some((row) =>
        row.cells[0].textContent === url && row.cells[1].textContent.endsWith('(joined)')), nodes[1].url,
      { timeout: WAIT });
      assert.match(await page.innerText('#cluster-state'), new RegExp(`this node: ${nodes[0].url}.*available`));
      assert.deepEqual(admin.errors, []);
    } finally {
      await admin.context.close();
    }
  });
});
