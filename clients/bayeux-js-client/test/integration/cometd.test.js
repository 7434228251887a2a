// Our client against a real CometD 8 server (cometd-reference-server: unmodified CometD from Maven Central on
// embedded Jetty 12), over each of its transports.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { AckExtension, Status } from '../../src/index.js';
import { ClientPool, TRANSPORTS } from '../helpers/clients.js';
import { startCometD } from '../helpers/server.js';
import { Inbox, statusReached } from '../helpers/wait.js';

let server;
before(async () => {
  server = await startCometD({ args: ['--set', 'timeout=5000'] });
});
after(() => server?.stop());

for (const transport of TRANSPORTS) {
  describe(`against CometD 8 over ${transport}`, () => {
    const pool = new ClientPool();
    after(() => pool.disconnectAll());

    it('handshakes and connects on the transport asked for', async () => {
      const client = pool.create(server.url, transport);
      const reply = await client.handshake();
      assert.equal(reply.successful, true);
      assert.ok(reply.supportedConnectionTypes.includes(transport), reply.supportedConnectionTypes.join());
      assert.equal(client.getTransport(), transport);
      await statusReached(client, Status.CONNECTED);
      assert.equal((await client.disconnect()).successful, true);
    });

    it('subscribes, publishes and delivers between two clients, then unsubscribes', async () => {
      const alice = pool.create(server.url, transport);
      const bob = pool.create(server.url, transport);
      await Promise.all([alice.handshake(), bob.handshake()]);
      const inbox = new Inbox();
      const subscription = bob.subscribe(`/cometd/${transport}/*`, inbox.push);
      assert.equal((await subscription.ready).successful, true);
      const data = { text: 'héllo from bayeux-js-client', list: [1, 2.5, null, false], nested: { a: { b: 'c' } } };
      const reply = await alice.publish(`/cometd/${transport}/room`, data);
      assert.equal(reply.successful, true);
      const message = await inbox.take();
      assert.equal(message.channel, `/cometd/${transport}/room`);
      assert.deepEqual(message.data, data);

      assert.equal((await subscription.unsubscribe()).successful, true);
      const control = new Inbox();
      await bob.subscribe(`/cometd/${transport}/control`, control.push).ready;
      await alice.publish(`/cometd/${transport}/room`, 'after unsubscribing');
      await alice.publish(`/cometd/${transport}/control`, 'control');
      assert.equal((await control.take()).data, 'control');
      assert.equal(inbox.messages.length, 1);
    });

    it('calls a CometD service and gets its answer', async () => {
      const client = pool.create(server.url, transport);
      await client.handshake();
      const answer = await client.remoteCall('/service/echo', { ping: transport });
      assert.equal(answer.successful, true);
      assert.deepEqual(answer.data, { ping: transport });
    });

    it('sends a batch and gets every reply', async () => {
      const client = pool.create(server.url, transport);
      await client.handshake();
      const inbox = new Inbox();
      await client.subscribe(`/cometd/batch/${transport}`, inbox.push).ready;
      const replies = client.batch(() => ['a', 'b', 'c'].map((x) => client.publish(`/cometd/batch/${transport}`, x)));
      assert.deepEqual((await Promise.all(replies)).map((r) => r.successful), [true, true, true]);
      assert.deepEqual([await inbox.take(), await inbox.take(), await inbox.take()].map((m) => m.data).sort(),
        ['a', 'b', 'c']);
    });

    it('works with the ack extension asked for, which this server does not run', async () => {
      const client = pool.create(server.url, transport);
      const ack = new AckExtension();
      client.registerExtension('ack', ack);
      await client.handshake();
      assert.equal(ack.enabled, false);
      const inbox = new Inbox();
      await client.subscribe(`/cometd/ack/${transport}`, inbox.push).ready;
      await client.publish(`/cometd/ack/${transport}`, 1);
      assert.equal((await inbox.take()).data, 1);
    });
  });
}
