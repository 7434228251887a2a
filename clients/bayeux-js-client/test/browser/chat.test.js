// The demo chat in Debian's Chromium, driven by playwright-core (which downloads no browser): what users see.
//
// Each user gets a browser context of their own (their own cookies and storage, as on two machines). Waits are
// Playwright's auto-waiting assertions with deadlines, never sleeps.

import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { chromium } from 'playwright-core';

import { PACKAGE_DIR, REPO_DIR, demoArgs, startServer } from '../helpers/server.js';

const CHROMIUM = process.env.BAYEUX_CHROMIUM ?? '/usr/bin/chromium';
const WAIT = 15000;
const SCREENSHOT = join(PACKAGE_DIR, 'target', 'screenshots', 'demo-chat.png');
const DOCS_SCREENSHOT = join(REPO_DIR, 'docs', 'images', 'demo-chat.png');

let browser;
let server;
before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (bin/bayeux test does it)`);
  }
  [browser, server] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM, headless: true }),
    startServer({ args: [...demoArgs(), '--set', 'timeout=5s'] }),
  ]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * Opens the demo as a new user and enters the chat.
 *
 * @param {string} base the server's base URL
 * @param {string} name
 * @param {{transports?: string, blockWebSocket?: boolean, viewport?: {width: number, height: number}}} [options]
 */
async function enter(base, name, options = {}) {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1180, height: 640 } });
  const user = { context, page: null, webSocketAttempts: 0 };
  if (options.blockWebSocket) {
    // As behind a proxy that accepts the upgrade and then drops the connection before anything comes back.
    await context.routeWebSocket(/\/bayeux/, (ws) => {
      user.webSocketAttempts++;
      ws.close();
    });
  }
  const page = await context.newPage();
  user.page = page;
  page.on('pageerror', (error) => { user.pageError = error; });
  await page.goto(`${base}/${options.transports ? `?transports=${options.transports}` : ''}`);
  await page.fill('#name', name);
  await page.click('#login-form button');
  await expectStatus(page, 'connected');
  await members(page).filter({ hasText: name }).first().waitFor({ timeout: WAIT });
  return user;
}

function members(page) {
  return page.locator('#member-list li');
}

async function expectStatus(page, status) {
  await page.locator(`#status[data-status="${status}"]`).waitFor({ timeout: WAIT });
}

async function say(page, text) {
  await page.fill('#text', text);
  await page.press('#text', 'Enter');
}

/**
 * Waits for a line in the conversation shown, and returns who it is from and what it says. Lines of a room's history
 * (messages from before the page joined) are not looked at: earlier tests' users spoke in the same rooms.
 */
async function line(page, text, kind = 'message') {
  const item = page.locator(`#messages li.${kind}:not(.history)`, { hasText: text }).first();
  await item.waitFor({ timeout: WAIT });
  if (kind === 'system') {
    return { from: null, text: await item.innerText() };
  }
  return { from: await item.locator('.from').innerText(), text: await item.locator('.text').innerText() };
}

/**
 * Waits until the member list shows these names. Users of earlier tests who closed their page stay members until the
 * server expires their session (maxInterval, 10 s), so each test has names of its own and, unless on a fresh
 * server, checks only that its users are listed.
 */
async function memberNames(page, expected, exact = false) {
  await page.waitForFunction(([names, only]) => {
    const shown = [...document.querySelectorAll('#member-list li')].map((li) => li.textContent.replace(' (you)', ''));
    return only ? JSON.stringify(shown.sort()) === JSON.stringify([...names].sort())
      : names.every((name) => shown.includes(name));
  }, [expected, exact], { timeout: WAIT });
}

async function close(...users) {
  await Promise.all(users.map((user) => user.context.close()));
}

describe('the demo chat', () => {
  it('lets two users chat over WebSocket, in the room and privately', async () => {
    const ann = await enter(server.base, 'Ann');
    const bob = await enter(server.base, 'Bob');
    try {
      assert.equal(await ann.page.innerText('#transport'), 'over websocket');
      await memberNames(ann.page, ['Ann', 'Bob'], true);
      await memberNames(bob.page, ['Ann', 'Bob'], true);
      await say(ann.page, 'Hello Bob, are you there?');
      assert.deepEqual(await line(bob.page, 'Hello Bob'), { from: 'Ann', text: 'Hello Bob, are you there?' });
      await say(bob.page, 'Hi Ann! Loud and clear.');
      assert.deepEqual(await line(ann.page, 'Loud and clear'), { from: 'Bob', text: 'Hi Ann! Loud and clear.' });
      await bob.page.click('#member-list li:has-text("Ann")');
      assert.equal(await bob.page.inputValue('#text'), '/msg Ann ');
      await bob.page.locator('#text').pressSequentially('This one is just for you.');
      await bob.page.press('#text', 'Enter');
      assert.equal((await line(ann.page, 'just for you', 'private')).from, 'Bob (to you)');
      assert.equal((await line(bob.page, 'just for you', 'private')).from, 'you (to Ann)');
      await say(ann.page, 'Got it, thanks.');
      await line(ann.page, 'Got it');
      await line(bob.page, 'Got it');
      mkdirSync(join(PACKAGE_DIR, 'target', 'screenshots'), { recursive: true });
      await ann.page.screenshot({ path: SCREENSHOT });
      if (process.env.BAYEUX_UPDATE_SCREENSHOT) {
        mkdirSync(join(REPO_DIR, 'docs', 'images'), { recursive: true });
        copyFileSync(SCREENSHOT, DOCS_SCREENSHOT);
      }
      assert.equal(ann.pageError, undefined);
      assert.equal(bob.pageError, undefined);
    } finally {
      await close(ann, bob);
    }
  });

  for (const [transport, names] of [['long-polling', ['Cleo', 'Dev']], ['callback-polling', ['Eve', 'Finn']]]) {
    it(`lets two users chat over ${transport}`, async () => {
      const ann = await enter(server.base, names[0], { transports: transport });
      const bob = await enter(server.base, names[1], { transports: transport });
      try {
        assert.equal(await bob.page.innerText('#transport'), `over ${transport}`);
        await memberNames(ann.page, names);
        await say(ann.page, `Polling with ${transport}`);
        await line(bob.page, `Polling with ${transport}`);
        await say(bob.page, 'Works here too');
        await line(ann.page, 'Works here too');
      } finally {
        await close(ann, bob);
      }
    });
  }

  it('falls back to long-polling when WebSockets are blocked', async () => {
    const ann = await enter(server.base, 'Gus', { blockWebSocket: true });
    const bob = await enter(server.base, 'Hana');
    try {
      assert.equal(await ann.page.innerText('#transport'), 'over long-polling');
      assert.equal(ann.webSocketAttempts, 1);
      assert.equal(await bob.page.innerText('#transport'), 'over websocket');
      await say(bob.page, 'Can you hear me through the proxy?');
      await line(ann.page, 'through the proxy');
      await say(ann.page, 'Yes, by long-polling');
      await line(bob.page, 'by long-polling');
    } finally {
      await close(ann, bob);
    }
  });

  it('keeps the session across a page reload', async () => {
    const ann = await enter(server.base, 'Ivy');
    const bob = await enter(server.base, 'Jack');
    try {
      const session = await ann.page.innerText('#session');
      assert.match(session, /^[a-z0-9]+$/);
      await ann.page.reload();
      await expectStatus(ann.page, 'connected');
      assert.equal(await ann.page.innerText('#session'), session, 'the same session after the reload');
      await memberNames(ann.page, ['Ivy', 'Jack']);
      await say(bob.page, 'Welcome back');
      await line(ann.page, 'Welcome back');
      await say(ann.page, 'Same session, same rooms');
      await line(bob.page, 'Same session, same rooms');
      await memberNames(bob.page, ['Ivy', 'Jack']);
    } finally {
      await close(ann, bob);
    }
  });

  it('runs the library\'s timers in a worker, so that background tabs keep their pace', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.base}/`);
      const result = await page.evaluate(async (url) => {
        const { BayeuxClient } = await import('/bayeux-js-client/index.js');
        const client = new BayeuxClient({ url, logLevel: 'off' });
        const reply = await client.handshake();
        const kind = client.context.scheduler.kind;
        const answer = await client.remoteCall('no/such/service', {}, 200);
        await client.disconnect();
        return { successful: reply.successful, kind, timedOut: answer.error };
      }, `${server.base}/bayeux`);
      assert.deepEqual(result, { successful: true, kind: 'worker', timedOut: '406::timeout' });
    } finally {
      await context.close();
    }
  });
});

describe('the demo chat, polished', () => {
  it('shows the login form alone, and no connection state, until a name is entered', async () => {
    const context = await browser.newContext({ viewport: { width: 1180, height: 640 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.base}/`);
      await page.locator('#login-form').waitFor({ timeout: WAIT });
      assert.equal(await page.locator('#login').isVisible(), true);
      for (const hidden of ['#chat', '#footer', '#status', '#banner', '#room-list', '#messages', '#member-list']) {
        assert.equal(await page.locator(hidden).isVisible(), false, `${hidden} is visible before login`);
      }
      assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('chat')).display), 'none');
      assert.equal(await page.locator('text=disconnected').count() > 0
        && await page.locator('text=disconnected').first().isVisible(), false, 'a "disconnected" pill before login');
      await page.fill('#name', 'Kim');
      await page.click('#login-form button');
      await expectStatus(page, 'connected');
      assert.equal(await page.locator('#status').isVisible(), true);
      assert.equal(await page.locator('#chat').isVisible(), true);
      assert.equal(await page.locator('#login').isVisible(), false);
    } finally {
      await context.close();
    }
  });

  it('fits a phone 390 px wide, before and after login', async () => {
    const phone = { width: 390, height: 844 };
    const context = await browser.newContext({ viewport: phone });
    try {
      const page = await context.newPage();
      await page.goto(`${server.base}/`);
      await page.locator('#login-form').waitFor({ timeout: WAIT });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, 'the login view overflows');
    } finally {
      await context.close();
    }
    const lee = await enter(server.base, 'Lee', { viewport: phone });
    try {
      await say(lee.page, `A long word: ${'x'.repeat(120)} and a long line ${'of words '.repeat(30)}`);
      await line(lee.page, 'A long word');
      await lee.page.fill('#room-name', 'a-rather-long-room-name-for-a-phone-x');
      await lee.page.click('#join-form button');
      await lee.page.locator('#room-list li', { hasText: 'a-rather-long-room-name' }).waitFor({ timeout: WAIT });
      const width = await lee.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the chat is ${width} px wide`);
      mkdirSync(join(PACKAGE_DIR, 'target', 'screenshots'), { recursive: true });
      await lee.page.screenshot({ path: join(PACKAGE_DIR, 'target', 'screenshots', 'demo-chat-phone.png'), fullPage: true });
      for (const usable of ['#text', '#send-form button', '#room-name', '#member-list']) {
        const box = await lee.page.locator(usable).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `${usable} is off screen: ${JSON.stringify(box)}`);
      }
      assert.equal(lee.pageError, undefined);
    } finally {
      await close(lee);
    }
  });

  it('shows the time of each message, by the server\'s clock', async () => {
    const mia = await enter(server.base, 'Mia');
    const ned = await enter(server.base, 'Ned');
    try {
      const before = Date.now();
      await say(mia.page, 'What time is it?');
      for (const { page } of [mia, ned]) {
        await line(page, 'What time is it?');
        const stamp = page.locator('#messages li.message:not(.history)', { hasText: 'What time is it?' }).locator('time.time');
        assert.match(await stamp.innerText(), /\d{1,2}:\d{2}/);
        const when = Date.parse(await stamp.getAttribute('datetime'));
        assert.ok(when >= before - 60000 && when <= Date.now() + 60000, `time ${new Date(when).toISOString()}`);
      }
      await ned.page.click('#member-list li:has-text("Mia")');
      await ned.page.locator('#text').pressSequentially('psst');
      await ned.page.press('#text', 'Enter');
      await line(mia.page, 'psst', 'private');
      assert.match(await mia.page.locator('#messages li.private', { hasText: 'psst' }).locator('time').innerText(),
        /\d{1,2}:\d{2}/);
    } finally {
      await close(mia, ned);
    }
  });

  it('shows someone who joins late the room\'s last messages, once each, also after a reload', async () => {
    const room = 'late-joiners';
    const joinRoom = async (page) => {
      await page.fill('#room-name', room);
      await page.click('#join-form button');
      await page.locator('#room-title', { hasText: room }).waitFor({ timeout: WAIT });
    };
    const history = (page) => page.evaluate(() => [...document.querySelectorAll('#messages li.message')]
      .map((li) => ({
        from: li.querySelector('.from').textContent,
        text: li.querySelector('.text').textContent,
        time: Boolean(li.querySelector('time')),
        history: li.classList.contains('history'),
      })));
    const ora = await enter(server.base, 'Ora');
    let pia;
    try {
      await joinRoom(ora.page);
      for (const text of ['first', 'second', 'third']) {
        await say(ora.page, `Ora's ${text} word`);
        await line(ora.page, `Ora's ${text} word`);
      }
      pia = await enter(server.base, 'Pia');
      await joinRoom(pia.page);
      const expected = ['first', 'second', 'third'].map((text) => ({
        from: 'Ora', text: `Ora's ${text} word`, time: true, history: true,
      }));
      await pia.page.locator('#messages li.history', { hasText: 'third' }).waitFor({ timeout: WAIT });
      assert.deepEqual(await history(pia.page), expected);
      await say(pia.page, 'Hi Ora, I read what you said');
      await line(ora.page, 'I read what you said');
      await line(pia.page, 'I read what you said');
      // Ora, already in the room, got no history; Pia's reload resumes the session in the room, and asks for it.
      assert.equal(await ora.page.locator('#messages li.history').count(), 0);
      await pia.page.reload();
      await expectStatus(pia.page, 'connected');
      await pia.page.locator('#room-title', { hasText: room }).waitFor({ timeout: WAIT });
      await pia.page.locator('#messages li.history', { hasText: 'I read what you said' }).waitFor({ timeout: WAIT });
      assert.deepEqual(await history(pia.page), [...expected,
        { from: 'Pia', text: 'Hi Ora, I read what you said', time: true, history: true }]);
      assert.equal(ora.pageError, undefined);
      assert.equal(pia.pageError, undefined);
    } finally {
      await close(ora, ...(pia ? [pia] : []));
    }
  });
});

describe('a server restart', () => {
  it('is shown to both users, who reconnect and get their rooms back', async () => {
    let own = await startServer({ args: [...demoArgs(), '--set', 'timeout=5s'] });
    const ann = await enter(own.base, 'Ann');
    const bob = await enter(own.base, 'Bob', { transports: 'long-polling' });
    try {
      await memberNames(ann.page, ['Ann', 'Bob'], true);
      const { port } = own;
      await own.stop();
      await Promise.all([ann, bob].map(async ({ page }) => {
        await page.locator('#banner', { hasText: 'Connection lost' }).waitFor({ timeout: WAIT });
        assert.notEqual(await page.getAttribute('#status', 'data-status'), 'connected');
      }));
      own = await startServer({ port, args: [...demoArgs(), '--set', 'timeout=5s'] });
      // The network is back: as the browser does on reconnection, tell the pages, which retry at once.
      await Promise.all([ann, bob].map(({ page }) => page.evaluate(() => window.dispatchEvent(new Event('online')))));
      await Promise.all([ann, bob].map(async ({ page }) => {
        await expectStatus(page, 'connected');
        await page.locator('#banner', { hasText: 'Reconnected' }).waitFor({ timeout: WAIT });
        await line(page, 'Reconnected to the server', 'system');
      }));
      // Their clients subscribed again by themselves; the service, which lost everything, knows them again.
      await memberNames(ann.page, ['Ann', 'Bob'], true);
      await memberNames(bob.page, ['Ann', 'Bob'], true);
      await say(ann.page, 'Still here after the restart?');
      await line(bob.page, 'after the restart');
      await say(bob.page, 'Yes!');
      await line(ann.page, 'Yes!');
    } finally {
      await close(ann, bob);
      await own.stop();
    }
  });
});
