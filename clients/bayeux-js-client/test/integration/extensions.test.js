// The client extensions against a server running the ack and timesync extensions.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  AckExtension, BinaryExtension, ReloadExtension, Status, TimeSyncExtension, TimestampExtension,
} from '../../src/index.js';
import { ClientPool, TRANSPORTS } from '../helpers/clients.js';
import { Cable, MemoryStorage, lossyFetch, lossyWebSocket } from '../helpers/network.js';
import { startServer } from '../helpers/server.js';
import { Inbox, statusReached } from '../helpers/wait.js';

let server;
before(async () => {
  // Binding off (requireBrowserCookie=false): the ack and reload scenarios carry a session to a new socket, and to a
  // new client instance, neither of which can show the session's browser cookie here. Node's WebSocket sends no
  // cookies, and each client in Node keeps a cookie jar of its own, where a reloaded browser page shares its
  // browser's. In a browser both carry the cookie, and binding stays on (test/browser).
  server = await startServer({
    args: ['--set', 'timeout=3s', '--set', 'requireBrowserCookie=false', '--extensions', 'ack,timesync'],
  });
});
after(() => server?.stop());

/** A lossy network for a transport: the first response or frame carrying `data` is lost. */
function losing(transport, data) {
  const lose = (text) => text.includes(JSON.stringify(data));
  return transport === 'websocket' ? { WebSocket: lossyWebSocket(lose) } : { fetch: lossyFetch(lose) };
}

for (const transport of TRANSPORTS) {
  describe(`ack over ${transport}`, () => {
    const pool = new ClientPool();
    after(() => pool.disconnectAll());

    it('gets a message again when the response carrying it was lost', async () => {
      const channel = `/ack/${transport}`;
      const network = losing(transport, 'must arrive');
      const client = pool.create(server.url, transport, network);
      const ack = new AckExtension();
      client.registerExtension('ack', ack);
      await client.handshake();
      assert.equal(ack.enabled, true);
      const inbox = new Inbox();
      await client.subscribe(channel, inbox.push).ready;
      await statusReached(client, Status.CONNECTED);
      const publisher = pool.create(server.url, transport);
      await publisher.handshake();
      await publisher.publish(channel, 'must arrive');
      assert.equal((await inbox.take()).data, 'must arrive');
      const lost = network.fetch?.lost ?? network.WebSocket.state.lost;
      assert.match(lost, /must arrive/, 'the first response carrying the message was lost');
      await publisher.publish(channel, 'next');
      assert.equal((await inbox.take()).data, 'next');
      assert.equal(inbox.messages.length, 2);
    });

    it('without the extension, the same loss loses the message', async () => {
      const channel = `/noack/${transport}`;
      const network = losing(transport, 'lost');
      const client = pool.create(server.url, transport, network);
      const inbox = new Inbox();
      await client.handshake();
      await client.subscribe(channel, inbox.push).ready;
      await statusReached(client, Status.CONNECTED);
      const publisher = pool.create(server.url, transport);
      await publisher.handshake();
      // Over long-polling the message may be piggy-backed on the publish's own response instead of the connect's:
      // the subscriber publishes nothing, so it can only come with a connect, which loses it.
      await publisher.publish(channel, 'lost');
      await statusReached(client, Status.UNCONNECTED);
      await statusReached(client, Status.CONNECTED);
      await publisher.publish(channel, 'after');
      assert.equal((await inbox.take()).data, 'after');
      assert.deepEqual(inbox.messages.map((m) => m.data), ['after']);
    });
  });

  describe(`binary over ${transport}`, () => {
    const pool = new ClientPool();
    after(() => pool.disconnectAll());

    it('sends bytes and receives them as an ArrayBuffer', async () => {
      const sender = pool.create(server.url, transport);
      const receiver = pool.create(server.url, transport);
      sender.registerExtension('binary', new BinaryExtension());
      receiver.registerExtension('binary', new BinaryExtension());
      await Promise.all([sender.handshake(), receiver.handshake()]);
      const inbox = new Inbox();
      await receiver.subscribe(`/binary/${transport}`, inbox.push).ready;
      const bytes = Uint8Array.from({ length: 1027 }, (_, i) => (i * 7 + 255) % 256);
      const reply = await sender.publishBinary(`/binary/${transport}`, bytes.subarray(3), true, { name: 'f.bin' });
      assert.equal(reply.successful, true);
      const message = await inbox.take();
      assert.ok(message.data.data instanceof ArrayBuffer);
      assert.deepEqual(new Uint8Array(message.data.data), bytes.subarray(3));
      assert.equal(message.data.last, true);
      assert.deepEqual(message.data.meta, { name: 'f.bin' });
    });
  });

  describe(`reload over ${transport}`, () => {
    const pool = new ClientPool();
    after(() => pool.disconnectAll());

    it('resumes the session of the page that went away, with what was queued meanwhile', async () => {
      const storage = new MemoryStorage();
      const cable = new Cable();
      const channel = `/reload/${transport}`;
      const before = pool.create(server.url, transport, { fetch: cable.fetch, WebSocket: cable.WebSocket });
      const reload = new ReloadExtension({ storage });
      before.registerExtension('reload', reload);
      before.registerExtension('ack', new AckExtension());
      await before.handshake();
      await before.subscribe(channel, () => {}).ready;
      await statusReached(before, Status.CONNECTED);
      const clientId = before.getClientId();

      // The page goes: its state is saved, its connections die without a disconnect.
      assert.equal(reload.save(), true);
      cable.cut();
      const publisher = pool.create(server.url, transport);
      await publisher.handshake();
      await publisher.publish(channel, 'sent during the reload');

      const after = pool.create(server.url, transport);
      after.registerExtension('reload', new ReloadExtension({ storage }));
      after.registerExtension('ack', new AckExtension());
      const inbox = new Inbox();
      after.addListener(channel, inbox.push);
      const reply = await after.handshake();
      assert.equal(reply.successful, true);
      assert.equal(reply.ext.reload, true);
      assert.equal(after.getClientId(), clientId);
      await statusReached(after, Status.CONNECTED);
      assert.equal((await inbox.take()).data, 'sent during the reload');
      assert.equal(after.getClientId(), clientId, 'no new handshake');
      assert.equal(storage.getItem('bayeux.reload'), null, 'a saved session is used once');
    });

    it('handshakes for real when the saved session has expired', async () => {
      const storage = new MemoryStorage();
      const gone = { clientId: 'expired0session0id', successful: true, channel: '/meta/handshake', version: '1.0',
        supportedConnectionTypes: [transport], advice: { reconnect: 'retry', interval: 0, timeout: 3000 } };
      storage.setItem('bayeux.reload', JSON.stringify({ url: server.url, savedAt: Date.now(), reply: gone }));
      const client = pool.create(server.url, transport);
      client.registerExtension('reload', new ReloadExtension({ storage }));
      const handshakes = new Inbox();
      client.addListener('/meta/handshake', handshakes.push);
      await client.handshake();
      assert.equal((await handshakes.take()).clientId, 'expired0session0id');
      const real = await handshakes.take();
      assert.equal(real.successful, true);
      assert.notEqual(real.clientId, 'expired0session0id');
      await statusReached(client, Status.CONNECTED);
    });
  });
}

describe('timesync and timestamp', () => {
  const pool = new ClientPool();
  after(() => pool.disconnectAll());

  it('measures the offset to the server clock', async () => {
    const client = pool.create(server.url, 'long-polling');
    const timesync = new TimeSyncExtension();
    client.registerExtension('timesync', timesync);
    await client.handshake();
    await statusReached(client, Status.CONNECTED);
    assert.ok(timesync.samples.length >= 1, 'replies carried samples');
    // Same machine, same clock: the offset is within the network lag's error.
    assert.ok(Math.abs(timesync.getTimeOffset()) < 1000, `offset ${timesync.getTimeOffset()}`);
    assert.ok(timesync.getNetworkLag() >= 0);
    assert.ok(Math.abs(timesync.getServerTime() - Date.now()) < 1000);
  });

  it('stamps outgoing messages with the time', async () => {
    const sender = pool.create(server.url, 'websocket');
    sender.registerExtension('timestamp', new TimestampExtension());
    const receiver = pool.create(server.url, 'websocket');
    await Promise.all([sender.handshake(), receiver.handshake()]);
    const inbox = new Inbox();
    await receiver.subscribe('/stamped', inbox.push).ready;
    await sender.publish('/stamped', 1);
    const message = await inbox.take();
    assert.match(message.timestamp, /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  });
});
