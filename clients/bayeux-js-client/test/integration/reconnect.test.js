// Surviving trouble: a server restart, a broken network, and WebSockets that do not get through.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { Status } from '../../src/index.js';
import { ClientPool, TRANSPORTS } from '../helpers/clients.js';
import { BlockedWebSocket, Cable, SilentWebSocket } from '../helpers/network.js';
import { startServer } from '../helpers/server.js';
import { Inbox, statusReached } from '../helpers/wait.js';

const SERVER_ARGS = ['--set', 'timeout=3s'];

describe('a server restart', () => {
  for (const transport of TRANSPORTS) {
    it(`is survived over ${transport}: both clients re-handshake and re-subscribe`, async () => {
      const pool = new ClientPool();
      let server = await startServer({ args: SERVER_ARGS });
      try {
        const alice = pool.create(server.url, transport);
        const bob = pool.create(server.url, transport);
        const handshakes = new Inbox();
        bob.addListener('/meta/handshake', handshakes.push);
        const subscribes = new Inbox();
        bob.addListener('/meta/subscribe', subscribes.push);
        await Promise.all([alice.handshake(), bob.handshake()]);
        const inbox = new Inbox();
        await bob.subscribe('/restart/news', inbox.push).ready;
        await alice.publish('/restart/news', 'before');
        assert.equal((await inbox.take()).data, 'before');
        const [aliceId, bobId] = [alice.getClientId(), bob.getClientId()];

        const { port } = server;
        await server.stop();
        await Promise.all([statusReached(alice, Status.UNCONNECTED), statusReached(bob, Status.UNCONNECTED)]);
        server = await startServer({ port, args: SERVER_ARGS });

        await Promise.all([statusReached(alice, Status.CONNECTED, 20000), statusReached(bob, Status.CONNECTED, 20000)]);
        const again = await handshakes.take((m) => m.successful && m.reestablish === true, 20000);
        assert.equal(again.clientId, bob.getClientId());
        assert.notEqual(alice.getClientId(), aliceId);
        assert.notEqual(bob.getClientId(), bobId);
        assert.equal(bob.getTransport(), transport);
        // Bob's client subscribed again by itself, in the envelope of its first connect: Alice's next message
        // reaches him.
        const resubscribed = await subscribes.take((m) => m.successful && Number(m.id) > Number(again.id));
        assert.equal(resubscribed.subscription, '/restart/news');
        assert.equal((await alice.publish('/restart/news', 'after')).successful, true);
        assert.equal((await inbox.take((m) => m.data === 'after', 20000)).data, 'after');
      } finally {
        await pool.disconnectAll();
        await server.stop();
      }
    });
  }
});

describe('a network that fails for a while', () => {
  let server;
  const pool = new ClientPool();
  after(async () => {
    await pool.disconnectAll();
    await server?.stop();
  });

  it('makes the client unconnected, then connected again on the same session', async () => {
    server = await startServer({ args: SERVER_ARGS });
    let failNext = 0;
    const flaky = async (url, init) => {
      if (failNext > 0 && String(init?.body).includes('/meta/connect')) {
        failNext--;
        throw new TypeError('fetch failed (flaky network)');
      }
      return fetch(url, init);
    };
    const client = pool.create(server.url, 'long-polling', { fetch: flaky });
    const connects = new Inbox();
    client.addListener('/meta/connect', connects.push);
    await client.handshake();
    await statusReached(client, Status.CONNECTED);
    const id = client.getClientId();
    const seen = [];
    client.addStatusListener((status) => seen.push(status));
    failNext = 3;
    // The held connect comes back within the server's timeout (3 s); the next three connects fail.
    const failure = await connects.take((m) => m.successful === false, 10000);
    assert.equal(failure.failure.reason, 'network error');
    await statusReached(client, Status.UNCONNECTED);
    await statusReached(client, Status.CONNECTED, 10000);
    assert.equal(client.getClientId(), id);
    assert.deepEqual(seen, ['unconnected', 'connected']);
    assert.equal(failNext, 0);
  });
});

describe('a server that forgets every new session', () => {
  let server;
  const pool = new ClientPool();
  after(async () => {
    await pool.disconnectAll();
    await server?.stop();
  });

  it('is handshaken again with a growing back-off, not flooded', async () => {
    server = await startServer({ args: SERVER_ARGS });
    // Every connect names a session the server never made: it answers 402 with advice to handshake again.
    const forgetful = (url, init) => fetch(url, {
      ...init, body: String(init.body).replace(/"clientId":"[^"]+"/, '"clientId":"unknown0session"'),
    });
    const client = pool.create(server.url, 'long-polling', { fetch: forgetful, backoffIncrement: 100, maxBackoff: 400 });
    const handshakes = new Inbox();
    client.addListener('/meta/handshake', (message) => handshakes.push({ at: Date.now(), message }));
    await client.handshake();
    const times = [];
    for (let i = 0; i < 4; i++) {
      times.push((await handshakes.take()).at);
    }
    // Back-offs after 1, 2 and 3 failures: at least 50, 100 and 200 ms (half of each is random).
    assert.ok(times[3] - times[0] >= 350, `handshakes at +${times.map((t) => t - times[0]).join(', +')} ms`);
    assert.equal(client.getStatus(), 'rehandshaking');
  });
});

describe('WebSocket fall-back', () => {
  let server;
  let noWebSocketServer;
  const pool = new ClientPool();
  after(async () => {
    await pool.disconnectAll();
    await server?.stop();
    await noWebSocketServer?.stop();
  });

  /** @param {import('../../src/index.js').BayeuxClient} client */
  async function exchanges(client) {
    const inbox = new Inbox();
    await client.subscribe('/fallback/x', inbox.push).ready;
    assert.equal((await client.publish('/fallback/x', 'through')).successful, true);
    assert.equal((await inbox.take()).data, 'through');
  }

  it('uses long-polling when WebSockets are blocked', async () => {
    server = await startServer({ args: SERVER_ARGS });
    BlockedWebSocket.attempts = 0;
    const client = pool.create(server.url, TRANSPORTS, { WebSocket: BlockedWebSocket });
    const reply = await client.handshake();
    assert.equal(reply.successful, true);
    assert.equal(client.getTransport(), 'long-polling');
    assert.equal(BlockedWebSocket.attempts, 1);
    await statusReached(client, Status.CONNECTED);
    await exchanges(client);
  });

  it('uses long-polling when a proxy drops WebSocket connections before any reply', async () => {
    SilentWebSocket.attempts = 0;
    const client = pool.create(server.url, TRANSPORTS, { WebSocket: SilentWebSocket });
    assert.equal((await client.handshake()).successful, true);
    assert.equal(client.getTransport(), 'long-polling');
    assert.equal(SilentWebSocket.attempts, 1);
    await exchanges(client);
  });

  it('uses long-polling when the server refuses WebSocket upgrades', async () => {
    noWebSocketServer = await startServer({ args: [...SERVER_ARGS, '--set', 'websocket=false'] });
    const client = pool.create(noWebSocketServer.url, TRANSPORTS);
    assert.equal((await client.handshake()).successful, true);
    assert.equal(client.getTransport(), 'long-polling');
    await statusReached(client, Status.CONNECTED);
    await exchanges(client);
  });

  it('stays on WebSocket after a cut once it has worked', async () => {
    const cable = new Cable();
    const client = pool.create(server.url, TRANSPORTS, { WebSocket: cable.WebSocket, fetch: cable.fetch });
    await client.handshake();
    await statusReached(client, Status.CONNECTED);
    assert.equal(client.getTransport(), 'websocket');
    // Once the held connect is out, the socket goes: the connect fails, and a new socket takes over.
    await cable.frames.take(({ text }) => text.includes('/meta/connect') && !text.includes('advice'));
    for (const socket of cable.sockets) {
      socket.close(4000);
    }
    await statusReached(client, Status.UNCONNECTED);
    await statusReached(client, Status.CONNECTED);
    assert.equal(client.getTransport(), 'websocket');
    assert.equal(cable.sockets.size, 2);
    await exchanges(client);
  });
});
