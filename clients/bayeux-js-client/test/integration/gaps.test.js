// Gaps while the session lives, against our standalone server on a redis-server of the test's own (--backplane): a
// test extension on the subscriber, which sees incoming messages before the recovery extension, drops the first
// delivery of offset 3 (a message written into a connection that died while the session survived). The recovery
// extension sees offsets 1, 2, 4, holds 4 and later ones back, and subscribes again from offset 2.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClientPool } from '../helpers/clients.js';
import { Cable } from '../helpers/network.js';
import { hasRedis, startRedis } from '../helpers/redis.js';
import { startServer } from '../helpers/server.js';
import { Inbox, statusReached } from '../helpers/wait.js';

const CHANNEL = '/gaps/room';

/** Waits until the node stores publishes (it answers 503::backplane_unavailable until its backplane connects). */
async function backplaneReady(client) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await client.publish('/gaps/probe', attempt)).successful) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail('the backplane did not connect within 200 attempts');
}

/** Drops the first delivery of one offset of CHANNEL. */
function losing(offset) {
  const lost = { count: 0 };
  return {
    lost,
    extension: {
      incoming(message) {
        if (message.channel === CHANNEL && message.ext?.position?.offset === offset && lost.count++ === 0) {
          return null;
        }
        return message;
      },
    },
  };
}

/**
 * @param {string} transport
 * @param {string[]} serverArgs more arguments for the server
 * @param {(context: {received: number[], recovery: any, publish: Function, inbox: Inbox}) => Promise<void>} body
 */
async function withGap(transport, serverArgs, body, cable = undefined) {
  const pool = new ClientPool();
  const redis = await startRedis();
  let node;
  try {
    node = await startServer({ args: ['--backplane', redis.uri, ...serverArgs] });
    const subscriber = pool.create(node.url, transport, cable ? { fetch: cable.fetch, WebSocket: cable.WebSocket } : {});
    const publisher = pool.create(node.url, 'websocket');
    const loss = losing(3);
    subscriber.registerExtension('lossy', loss.extension);
    await Promise.all([subscriber.handshake(), publisher.handshake()]);
    await backplaneReady(publisher);
    /** @type {number[]} */
    const received = [];
    const inbox = new Inbox();
    const reply = await subscriber.subscribe(CHANNEL, (message) => {
      received.push(message.data);
      inbox.push(message);
    }).ready;
    assert.equal(reply.successful, true);
    const publish = async (from, to) => {
      for (let i = from; i < to; i++) {
        assert.equal((await publisher.publish(CHANNEL, i)).successful, true, `publish ${i}`);
      }
    };
    await body({ received, recovery: subscriber.getExtension('recovery'), publish, inbox, subscriber });
    assert.equal(loss.lost.count >= 1, true, 'offset 3 was dropped');
  } finally {
    await pool.disconnectAll();
    await node?.stop();
    await redis.stop();
  }
}

describe('gaps in offsets on a Redis backplane', { skip: !hasRedis() && 'redis-server is not installed' }, () => {
  for (const transport of ['websocket', 'long-polling']) {
    it(`recovers a message lost while the session lives (${transport}): each once, in order`, async () => {
      await withGap(transport, ['--set', 'historyRules=/gaps/**'], async ({ received, recovery, publish, inbox }) => {
        await publish(0, 20);
        await inbox.take((m) => m.data === 19, 20000);
        assert.deepEqual(received, Array.from({ length: 20 }, (_, i) => i), 'all, once, in order');
        assert.equal(recovery.recovered(CHANNEL), true);
        assert.deepEqual(recovery.stats().gapsDetected, 1);
        assert.deepEqual(recovery.stats().gapsRecovered, 1);
        assert.deepEqual(recovery.stats().gapsLost, 0);
        await publish(20, 25);
        await inbox.take((m) => m.data === 24, 20000);
        assert.deepEqual(received, Array.from({ length: 25 }, (_, i) => i), 'later ones once: no doubled subscription');
        assert.equal(recovery.position(CHANNEL).offset, 25);
      });
    });

    it(`recovers the gap when its subscribe is lost with the connection and the session survives (${transport})`, async () => {
      const cable = new Cable();
      await withGap(transport, ['--set', 'historyRules=/gaps/**'], async ({ received, recovery, publish, inbox, subscriber }) => {
        // The gap's subscribe (from offset 2) pulls the cable as it goes out: it is lost, the session lives on.
        let pulled = false;
        subscriber.registerExtension('puller', {
          outgoing(message) {
            if (message.channel === '/meta/subscribe' && message.ext?.recovery?.offset === 2 && !pulled) {
              pulled = true;
              cable.cut();
            }
            return message;
          },
        });
        const unconnected = statusReached(subscriber, 'unconnected', 20000);
        await publish(0, 6);
        await unconnected;
        cable.isCut = false;
        await publish(6, 10);
        await inbox.take((m) => m.data === 9, 30000);
        assert.equal(pulled, true);
        assert.deepEqual(received, Array.from({ length: 10 }, (_, i) => i), 'all, once, in order');
        assert.deepEqual(recovery.stats(), { ...recovery.stats(), gapsDetected: 1, gapsRecovered: 1, gapsLost: 0 });
        assert.equal(recovery.recovered(CHANNEL), true);
      }, cable);
    });

    it(`accepts a gap the history no longer covers (${transport}): the others once, in order`, async () => {
      await withGap(transport, ['--set', 'historyRules=/gaps/**=1/10m'], async ({ received, recovery, publish, inbox }) => {
        await publish(0, 10);
        // 9 comes after 4 (held back until the recovery failed), so the gap is given up by then.
        await inbox.take((m) => m.data === 9, 20000);
        assert.deepEqual(recovery.stats().gapsLost, 1);
        await publish(10, 12);
        await inbox.take((m) => m.data === 11, 20000);
        assert.deepEqual(received, [0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11], 'all but the lost one, once, in order');
        assert.equal(recovery.recovered(CHANNEL), false);
        assert.deepEqual(recovery.stats().gapsDetected, 1);
        assert.deepEqual(recovery.stats().gapsLost, 1);
      });
    });
  }
});
