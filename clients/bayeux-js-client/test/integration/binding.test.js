// Session binding at the server's default (sessionBinding=COOKIE_ONCE_SHOWN, issue 31): in Node.js our client's
// WebSockets send no cookies, so its session never shows one and is found by its clientId alone. Through ten cuts of
// every TCP connection it keeps its session, and with the ack extension it loses nothing. Under strict binding each
// cut cost it its session (402::session_unknown, a new handshake, what was in flight lost).

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';

import { AckExtension } from '../../src/index.js';
import { ClientPool } from '../helpers/clients.js';
import { startServer } from '../helpers/server.js';
import { within } from '../helpers/wait.js';

const CUTS = 10;
const PER_ROUND = 100;

/** A TCP relay on 127.0.0.1 in front of the server whose connections can all be cut at once. */
class CuttingRelay {
  constructor(targetPort) {
    this.targetPort = targetPort;
    /** @type {Set<net.Socket>} */
    this.sockets = new Set();
    this.server = net.createServer((client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      for (const [from, to] of [[client, upstream], [upstream, client]]) {
        this.sockets.add(from);
        from.on('error', () => to.destroy());
        from.on('close', () => { this.sockets.delete(from); to.destroy(); });
        from.pipe(to);
      }
    });
  }

  listen() {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve(this.server.address().port)));
  }

  /** Resets every connection open now, both sides. */
  cut() {
    for (const socket of this.sockets) {
      socket.resetAndDestroy();
    }
  }

  close() {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve(undefined)));
  }
}

/** Resolves with the next /meta/connect reply whose success is as asked. */
function nextConnect(client, successful, ms, what) {
  let handle;
  const seen = new Promise((resolve) => {
    handle = client.addListener('/meta/connect', (message) => {
      if (Boolean(message.successful) === successful) {
        resolve(message);
      }
    });
  });
  return within(seen, ms, what).finally(() => client.removeListener(handle));
}

describe('a cookie-less client at the default session binding', () => {
  let server;
  let relay;
  const pool = new ClientPool();
  before(async () => {
    server = await startServer({ args: ['--set', 'timeout=3s', '--extensions', 'ack'] });
    relay = new CuttingRelay(server.port);
  });
  after(async () => {
    await pool.disconnectAll();
    await relay?.close();
    await server?.stop();
  });

  it('keeps its session over WebSocket through ten connection cuts, with nothing lost', async () => {
    const port = await relay.listen();
    const client = pool.create(`http://127.0.0.1:${port}/bayeux`, 'websocket');
    client.registerExtension('ack', new AckExtension());
    let handshakes = 0;
    client.addListener('/meta/handshake', (message) => {
      if (message.successful) {
        handshakes++;
      }
    });
    const received = [];
    let allReceived;
    const total = (CUTS + 1) * PER_ROUND;
    const everything = new Promise((resolve) => { allReceived = resolve; });
    await client.handshake();
    const clientId = client.getClientId();
    await client.subscribe('/cut/a', (message) => {
      received.push(message.data.seq);
      if (received.length >= total) {
        allReceived();
      }
    }).ready;
    const publisher = pool.create(server.url, 'long-polling');
    await publisher.handshake();

    let seq = 0;
    for (let cut = 0; cut < CUTS; cut++) {
      for (let i = 0; i < PER_ROUND; i++) {
        publisher.publish('/cut/a', { seq: seq++ });
      }
      const failed = nextConnect(client, false, 10000, `the connect cut ${cut} broke`);
      const back = failed.then(() => nextConnect(client, true, 20000, `a connect after cut ${cut}`));
      relay.cut();
      await back;
    }
    for (let i = 0; i < PER_ROUND; i++) {
      publisher.publish('/cut/a', { seq: seq++ });
    }
    await within(everything, 30000, `${total} messages (${received.length} so far)`);

    assert.equal(handshakes, 1, 'no new handshake');
    assert.equal(client.getClientId(), clientId);
    assert.equal(received.length, total);
    assert.equal(new Set(received).size, total, 'each once');
    assert.deepEqual(received, [...received].sort((a, b) => a - b), 'in order');
  });
});
