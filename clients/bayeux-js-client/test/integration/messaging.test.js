// The core API against a real server, over each transport.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Status } from '../../src/index.js';
import { ClientPool, TRANSPORTS } from '../helpers/clients.js';
import { demoArgs, startServer } from '../helpers/server.js';
import { Inbox, statusReached, within } from '../helpers/wait.js';

let server;
before(async () => {
  server = await startServer({ args: [...demoArgs(), '--set', 'timeout=3s'] });
});
after(() => server?.stop());

for (const transport of TRANSPORTS) {
  describe(`over ${transport}`, () => {
    const pool = new ClientPool();
    after(() => pool.disconnectAll());

    it('handshakes, connects and reports its state', async () => {
      const client = pool.create(server.url, transport);
      const seen = [];
      client.addStatusListener((status) => seen.push(status));
      const reply = await client.handshake();
      assert.equal(reply.successful, true);
      assert.match(client.getClientId(), /^[A-Za-z0-9]+$/);
      assert.equal(client.getTransport(), transport);
      await statusReached(client, Status.CONNECTED);
      assert.deepEqual(seen, ['handshaking', 'connected']);
      const bye = await client.disconnect();
      assert.equal(bye.successful, true);
      assert.equal(client.getStatus(), 'disconnected');
      assert.equal(client.getClientId(), null);
    });

    it('delivers a publish to every subscriber, and answers the publisher', async () => {
      const alice = pool.create(server.url, transport);
      const bob = pool.create(server.url, transport);
      await Promise.all([alice.handshake(), bob.handshake()]);
      const inbox = new Inbox();
      const subscription = bob.subscribe(`/messaging/${transport}/a`, inbox.push);
      assert.equal((await subscription.ready).successful, true);
      const reply = await alice.publish(`/messaging/${transport}/a`, { text: 'héllo 👋', n: [1, null, true] });
      assert.equal(reply.successful, true);
      assert.equal('data' in reply, false);
      const message = await inbox.take();
      assert.deepEqual(message.data, { text: 'héllo 👋', n: [1, null, true] });
      assert.equal(message.channel, `/messaging/${transport}/a`);
    });

    it('matches wildcard subscriptions and stops after unsubscribing', async () => {
      const client = pool.create(server.url, transport);
      await client.handshake();
      const one = new Inbox();
      const many = new Inbox();
      const base = `/wild/${transport}`;
      const star = client.subscribe(`${base}/*`, one.push);
      const deep = client.subscribe(`${base}/**`, many.push);
      await Promise.all([star.ready, deep.ready]);
      await client.publish(`${base}/x/y`, 'deep');
      await client.publish(`${base}/x`, 'shallow');
      assert.equal((await many.take()).data, 'deep');
      assert.equal((await many.take()).data, 'shallow');
      assert.equal((await one.take()).data, 'shallow');
      assert.equal((await star.unsubscribe()).successful, true);
      await client.publish(`${base}/z`, 'after');
      assert.equal((await many.take()).data, 'after');
      assert.equal(one.messages.length, 1);
    });

    it('sends a batch together and answers each message', async () => {
      const client = pool.create(server.url, transport);
      await client.handshake();
      const inbox = new Inbox();
      await client.subscribe(`/batch/${transport}`, inbox.push).ready;
      const replies = client.batch(() => [1, 2, 3].map((n) => client.publish(`/batch/${transport}`, n)));
      assert.deepEqual((await Promise.all(replies)).map((r) => r.successful), [true, true, true]);
      const received = [await inbox.take(), await inbox.take(), await inbox.take()].map((m) => m.data);
      assert.deepEqual(received, [1, 2, 3]);
    });

    it('calls a service and gets its answer, its failure, or a timeout', async () => {
      const client = pool.create(server.url, transport);
      await client.handshake();
      const answer = await client.remoteCall('/service/chat/members', { room: 'nobody-here' });
      assert.equal(answer.successful, true);
      const { version, ...members } = answer.data;
      assert.deepEqual(members, { type: 'members', room: 'nobody-here', members: [] });
      assert.ok(Number.isInteger(version), `version ${version}`);
      const failed = await client.remoteCall('chat/members', { wrong: true });
      assert.equal(failed.successful, false);
      assert.equal(failed.error, '500::service_failed');
      let called;
      const silent = await client.remoteCall('no/such/service', {}, 300, (reply) => { called = reply; });
      assert.equal(silent.successful, false);
      assert.equal(silent.error, '406::timeout');
      assert.equal(called, silent);
    });

    it('reports refusals to callbacks and to /meta/unsuccessful listeners', async () => {
      const client = pool.create(server.url, transport);
      const failures = new Inbox();
      client.addListener('/meta/unsuccessful', failures.push);
      await client.handshake();
      let called;
      // The chat service refuses messages from sessions that did not give a name.
      const refused = await client.publish('/chat/room/lobby', { text: 'I have no name' }, (r) => { called = r; });
      assert.equal(refused.successful, false);
      assert.equal(refused.error, '404::message_deleted');
      assert.equal(called, refused);
      const meta = await failures.take((m) => m.originalChannel === '/chat/room/lobby');
      assert.equal(meta.error, '404::message_deleted');
    });

    it('passes messages sent directly to the session to listeners', async () => {
      const client = pool.create(server.url, transport, {});
      await client.handshake({ ext: { chat: { name: `pm-${transport}` } } });
      const sender = pool.create(server.url, transport);
      await sender.handshake({ ext: { chat: { name: `sender-${transport}` } } });
      const inbox = new Inbox();
      client.addListener('/chat/private', inbox.push);
      const answer = await sender.remoteCall('chat/private', { to: `pm-${transport}`, text: 'psst' });
      assert.deepEqual(answer.data, { delivered: 1 });
      const note = await inbox.take();
      const { time, ...rest } = note.data;
      assert.deepEqual(rest, { type: 'private', from: `sender-${transport}`, to: `pm-${transport}`, text: 'psst' });
      assert.ok(Number.isInteger(time), 'the demo stamps the server\'s time');
    });

    it('keeps going when a listener throws, and reports it', async () => {
      const errors = [];
      const client = pool.create(server.url, transport, {
        onListenerException: (error, context) => errors.push({ error, context }),
      });
      await client.handshake();
      const inbox = new Inbox();
      await client.subscribe(`/throw/${transport}`, () => { throw new Error('boom'); }).ready;
      await client.subscribe(`/throw/${transport}`, inbox.push).ready;
      client.addStatusListener(() => { throw new Error('status boom'); });
      await client.publish(`/throw/${transport}`, 1);
      await client.publish(`/throw/${transport}`, 2);
      assert.equal((await inbox.take()).data, 1);
      assert.equal((await inbox.take()).data, 2);
      const booms = errors.filter((e) => e.error.message === 'boom');
      assert.equal(booms.length, 2);
      assert.equal(booms[0].context.kind, 'subscription');
      assert.equal(booms[0].context.channel, `/throw/${transport}`);
      await statusReached(client, Status.CONNECTED);
    });
  });
}

describe('before and after a session', () => {
  const pool = new ClientPool();
  after(() => pool.disconnectAll());

  it('queues messages made while handshaking and sends them once the session exists', async () => {
    const client = pool.create(server.url, 'long-polling');
    const handshake = client.handshake();
    const inbox = new Inbox();
    const subscription = client.subscribe('/early/bird', inbox.push);
    const published = client.publish('/early/bird', 'worm');
    assert.equal((await handshake).successful, true);
    assert.equal((await subscription.ready).successful, true);
    assert.equal((await published).successful, true);
    assert.equal((await inbox.take()).data, 'worm');
  });

  it('fails requests made after a disconnect without throwing', async () => {
    const client = pool.create(server.url, 'websocket');
    await client.handshake();
    await client.disconnect();
    const reply = await client.publish('/after/all', 1);
    assert.equal(reply.successful, false);
    assert.equal(reply.error, 'disconnected');
    const subscription = client.subscribe('/after/all', () => {});
    assert.equal((await subscription.ready).successful, false);
  });

  it('fails requests beyond maxPendingMessages at once instead of queueing without bound', async () => {
    const client = pool.create(server.url, 'long-polling', { maxPendingMessages: 3 });
    const handshake = client.handshake();
    // While the handshake is out, requests wait: the handshake and two publishes fill the three places.
    const waiting = [client.publish('/bounded', 1), client.publish('/bounded', 2)];
    const refused = await client.publish('/bounded', 3);
    assert.equal(refused.successful, false);
    assert.match(refused.error, /more than 3 messages waiting/);
    await handshake;
    assert.deepEqual((await Promise.all(waiting)).map((r) => r.successful), [true, true]);
    assert.equal((await client.publish('/bounded', 4)).successful, true);
  });

  it('refuses bad arguments at once', () => {
    const client = pool.create(server.url, 'websocket');
    assert.throws(() => client.publish('/a/*', 1), TypeError);
    assert.throws(() => client.publish('/meta/connect', 1), TypeError);
    assert.throws(() => client.subscribe('no-slash', () => {}), TypeError);
    assert.throws(() => client.subscribe('/a', 'not a function'), TypeError);
    assert.throws(() => client.configure({ nope: 1 }), TypeError);
    assert.throws(() => client.configure({ transports: ['carrier-pigeon'] }), TypeError);
  });

  it('refuses to be reconfigured while it has a session', async () => {
    const client = pool.create(server.url, 'long-polling');
    await client.handshake();
    assert.throws(() => client.configure({ maxNetworkDelay: 1 }), /disconnected client/);
    await client.disconnect();
    client.configure({ maxNetworkDelay: 2000 });
    assert.equal(client.getConfiguration().maxNetworkDelay, 2000);
  });

  it('fails a handshake to a server that is not there, and retries until told to stop', async () => {
    const client = pool.create('http://127.0.0.1:9/bayeux', 'long-polling', { maxNetworkDelay: 1000 });
    const attempts = [];
    client.addListener('/meta/handshake', (m) => attempts.push(m));
    const reply = await within(client.handshake(), 5000, 'the first handshake reply');
    assert.equal(reply.successful, false);
    assert.equal(reply.failure.transport, 'long-polling');
    assert.equal(client.getStatus(), 'handshaking');
    await within(new Promise((resolve) => {
      const handle = client.addListener('/meta/handshake', () => {
        client.removeListener(handle);
        resolve(undefined);
      });
    }), 5000, 'a second attempt');
    await client.disconnect();
    assert.equal(client.getStatus(), 'disconnected');
  });
});
