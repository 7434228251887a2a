// Recovery across two nodes of our standalone server on one redis-server (--backplane): a subscriber whose node is
// killed comes back on the other node, handshakes again, subscribes again with its last position, and gets every
// message it missed, once, in order, followed by the live ones, while a publisher on the other node keeps publishing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClientPool } from '../helpers/clients.js';
import { hasRedis, startRedis } from '../helpers/redis.js';
import { startServer } from '../helpers/server.js';
import { Inbox } from '../helpers/wait.js';

const CHANNEL = '/recovery/room';

/**
 * A fetch and a WebSocket class that send the client to whichever node `target.port` names: a load balancer that
 * moves the client when its node dies.
 *
 * @param {{port: number}} target
 */
function movable(target) {
  const rewrite = (url) => {
    const moved = new URL(String(url));
    moved.port = String(target.port);
    return moved.toString();
  };
  return {
    fetch: (url, init) => fetch(rewrite(url), init),
    WebSocket: class extends WebSocket {
      constructor(url, protocols) {
        super(rewrite(url), protocols);
      }
    },
  };
}

/**
 * Waits until the client's node stores publishes: a node listens before its backplane is connected, and answers
 * 503::backplane_unavailable until then. Probes on a channel of their own, bounded.
 *
 * @param {import('../../src/index.js').BayeuxClient} client
 */
async function backplaneReady(client) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await client.publish('/recovery/probe', attempt)).successful) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail('the backplane did not connect within 200 attempts');
}

describe('recovery on a Redis backplane', { skip: !hasRedis() && 'redis-server is not installed' }, () => {
  for (const transport of ['websocket', 'long-polling']) {
    it(`brings a ${transport} client whose node was killed everything it missed, on the other node`, async () => {
      const pool = new ClientPool();
      const redis = await startRedis();
      // History is opt-in, and the subscriber's new session on the other node may read back only as far as the
      // look-back allows: what it missed while its node was dead.
      const args = ['--backplane', redis.uri, '--set', 'timeout=2s', '--set', 'historyRules=/recovery/**',
        '--set', 'historyLookBack=10m'];
      const nodes = [];
      try {
        nodes.push(await startServer({ args }), await startServer({ args }));
        const [a, b] = nodes;
        const target = { port: a.port };
        const subscriber = pool.create(a.url, transport, movable(target));
        const publisher = pool.create(b.url, 'long-polling');
        const handshakes = new Inbox();
        subscriber.addListener('/meta/handshake', handshakes.push);
        const replies = new Inbox();
        subscriber.addListener('/meta/subscribe', replies.push);
        await Promise.all([subscriber.handshake(), publisher.handshake()]);
        await Promise.all([backplaneReady(subscriber), backplaneReady(publisher)]);
        assert.equal(subscriber.getExtension('recovery').offered, true, 'offered in the handshake reply');
        /** @type {number[]} */
        const received = [];
        const inbox = new Inbox();
        await subscriber.subscribe(CHANNEL, (message) => {
          received.push(message.data);
          inbox.push(message);
        }).ready;
        const publish = async (from, to) => {
          for (let i = from; i < to; i++) {
            assert.equal((await publisher.publish(CHANNEL, i)).successful, true, `publish ${i}`);
          }
        };

        await publish(0, 10);
        await inbox.take((m) => m.data === 9, 20000);
        const firstId = subscriber.getClientId();

        await a.stop();
        await publish(10, 60);
        target.port = b.port;
        // More while the client comes back on node B.
        await publish(60, 110);
        await handshakes.take((m) => m.successful && m.clientId !== firstId, 30000);
        const reply = await replies.take((m) => m.successful && m.ext?.recovery?.recovered !== undefined, 30000);
        assert.equal(reply.ext.recovery.recovered, true);
        await inbox.take((m) => m.data === 109, 30000);
        await publish(110, 111);
        await inbox.take((m) => m.data === 110, 30000);

        assert.deepEqual(received, Array.from({ length: 111 }, (_, i) => i), 'all, once, in order');
        assert.equal(subscriber.getExtension('recovery').recovered(CHANNEL), true);
        assert.equal(subscriber.getExtension('recovery').position(CHANNEL).offset, 111);
      } finally {
        await pool.disconnectAll();
        await Promise.all(nodes.map((node) => node.stop()));
        await redis.stop();
      }
    });
  }
});
