// The clustered demo in Debian's Chromium (bin/bayeux demo --nodes 2 starts its nodes with these options): two Oort
// nodes, one browser on each; the two users chat with each other and see one member list.
//
// Each user gets a browser context of their own. Waits are Playwright's auto-waiting with deadlines, never sleeps.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { chromium } from 'playwright-core';

import { demoArgs, startServer } from '../helpers/server.js';

const CHROMIUM = process.env.BAYEUX_CHROMIUM ?? '/usr/bin/chromium';
const WAIT = 20000;

let browser;
let nodes = [];
let secretDir;

function nodeArgs(secretFile, seed) {
  return [...demoArgs(), '--set', 'timeout=5s', '--oort-url', 'http://127.0.0.1:0/bayeux', '--oort-secret-file', secretFile,
    '--oort-channels', '/chat/room/*,/chat-cluster/*', '--set', 'oort.heartbeatInterval=500ms',
    ...(seed ? ['--oort-seeds', seed] : [])];
}

before(async () => {
  secretDir = mkdtempSync(join(tmpdir(), 'bayeux-cluster-test-'));
  const secretFile = join(secretDir, 'secret');
  writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const first = await startServer({ args: nodeArgs(secretFile) });
  nodes.push(first);
  nodes.push(await startServer({ args: nodeArgs(secretFile, first.url) }));
});
after(async () => {
  await browser?.close();
  await Promise.all(nodes.map((node) => node.stop()));
  nodes = [];
  if (secretDir) {
    rmSync(secretDir, { recursive: true, force: true });
  }
});

async function enter(base, name) {
  const context = await browser.newContext({ viewport: { width: 1180, height: 640 } });
  const page = await context.newPage();
  const user = { context, page, pageError: undefined };
  page.on('pageerror', (error) => { user.pageError = error; });
  await page.goto(`${base}/`);
  await page.fill('#name', name);
  await page.click('#login-form button');
  await page.locator('#status[data-status="connected"]').waitFor({ timeout: WAIT });
  return user;
}

async function memberNames(page, expected) {
  await page.waitForFunction((names) => {
    const shown = [...document.querySelectorAll('#member-list li')].map((li) => li.textContent.replace(' (you)', ''));
    return JSON.stringify(shown.sort()) === JSON.stringify([...names].sort());
  }, expected, { timeout: WAIT });
}

async function say(page, text) {
  await page.fill('#text', text);
  await page.press('#text', 'Enter');
}

async function line(page, text, kind = 'message') {
  const item = page.locator(`#messages li.${kind}`, { hasText: text }).first();
  await item.waitFor({ timeout: WAIT });
  return { from: await item.locator('.from').innerText(), text: await item.locator('.text').innerText() };
}

describe('the clustered demo', () => {
  it('lets two users on two nodes chat and see one member list', async () => {
    const ann = await enter(nodes[0].base, 'Ann');
    const bob = await enter(nodes[1].base, 'Bob');
    try {
      // The nodes join while the pages load: the lists converge to both names on both pages.
      await memberNames(ann.page, ['Ann', 'Bob']);
      await memberNames(bob.page, ['Ann', 'Bob']);
      await say(ann.page, 'Hello from node one');
      assert.deepEqual(await line(bob.page, 'Hello from node one'), { from: 'Ann', text: 'Hello from node one' });
      await say(bob.page, 'Hello from node two');
      assert.deepEqual(await line(ann.page, 'Hello from node two'), { from: 'Bob', text: 'Hello from node two' });
      await bob.page.click('#member-list li:has-text("Ann")');
      await bob.page.locator('#text').pressSequentially('Across the cluster, just for you.');
      await bob.page.press('#text', 'Enter');
      assert.equal((await line(ann.page, 'just for you', 'private')).from, 'Bob (to you)');
      assert.equal(await ann.page.locator('#messages li.message', { hasText: 'Hello from node two' }).count(), 1,
        'each message shown once');
      assert.equal(ann.pageError, undefined);
      assert.equal(bob.pageError, undefined);
    } finally {
      await Promise.all([ann.context.close(), bob.context.close()]);
    }
  });
});
