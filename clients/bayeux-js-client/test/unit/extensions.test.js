// The extensions' own logic, message by message.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  AckExtension, BinaryExtension, BayeuxClient, RecoveryExtension, TimeSyncExtension,
} from '../../src/index.js';
import { ExtensionChain } from '../../src/extension-chain.js';

describe('ack', () => {
  it('asks in the handshake, then echoes the last connect reply processed', () => {
    const ack = new AckExtension();
    assert.deepEqual(ack.outgoing({ channel: '/meta/handshake' }).ext, { ack: true });
    ack.incoming({ channel: '/meta/handshake', successful: true, ext: { ack: true } });
    assert.deepEqual(ack.outgoing({ channel: '/meta/connect' }).ext, { ack: 0 });
    ack.incoming({ channel: '/meta/connect', successful: true, ext: { ack: 7 } });
    ack.incoming({ channel: '/meta/connect', successful: false, ext: { ack: 8 } });
    assert.deepEqual(ack.outgoing({ channel: '/meta/connect', ext: { other: 1 } }).ext, { other: 1, ack: 7 });
    assert.equal(ack.outgoing({ channel: '/a', data: 1 }).ext, undefined);
  });

  it('stays off when the server does not agree', () => {
    const ack = new AckExtension();
    ack.outgoing({ channel: '/meta/handshake' });
    ack.incoming({ channel: '/meta/handshake', successful: true, ext: { ack: 'true' } });
    assert.equal(ack.outgoing({ channel: '/meta/connect' }).ext, undefined);
  });
});

describe('recovery', () => {
  it('does nothing until a handshake reply offers it', () => {
    const recovery = new RecoveryExtension();
    assert.equal(recovery.outgoing({ channel: '/meta/subscribe', subscription: '/a' }).ext, undefined);
    recovery.incoming({ channel: '/meta/handshake', successful: true, ext: {} });
    assert.equal(recovery.outgoing({ channel: '/meta/subscribe', subscription: '/a' }).ext, undefined);
  });

  it('tracks the last position per channel and sends it with the next subscribe, across re-handshakes', () => {
    const recovery = new RecoveryExtension();
    recovery.incoming({ channel: '/meta/handshake', successful: true, ext: { recovery: true } });
    assert.deepEqual(recovery.outgoing({ channel: '/meta/subscribe', subscription: '/a' }).ext, { recovery: {} });
    assert.equal(recovery.outgoing({ channel: '/meta/subscribe', subscription: '/a/*' }).ext, undefined);
    recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', successful: true,
      ext: { recovery: { offset: 4, epoch: 'e1' } } });
    assert.deepEqual(recovery.position('/a'), { offset: 4, epoch: 'e1' });
    recovery.incoming({ channel: '/a', data: 1, ext: { position: { offset: 5, epoch: 'e1' } } });
    recovery.incoming({ channel: '/a', data: 0, ext: { position: { offset: 3, epoch: 'e1' } } });
    recovery.incoming({ channel: '/meta/handshake', successful: true, ext: { recovery: true } });
    assert.deepEqual(recovery.outgoing({ channel: '/meta/subscribe', subscription: '/a', ext: { x: 1 } }).ext,
      { x: 1, recovery: { offset: 5, epoch: 'e1' } });
    recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', successful: true,
      ext: { recovery: { recovered: true, offset: 9, epoch: 'e1' } } });
    assert.equal(recovery.recovered('/a'), true);
    assert.deepEqual(recovery.position('/a'), { offset: 5, epoch: 'e1' }, 'the missed messages move it, not the reply');
    recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', successful: true,
      ext: { recovery: { recovered: false, offset: 2, epoch: 'e2' } } });
    assert.equal(recovery.recovered('/a'), false);
    assert.deepEqual(recovery.position('/a'), { offset: 2, epoch: 'e2' }, 'a new epoch replaces ours');
    recovery.outgoing({ channel: '/meta/unsubscribe', subscription: '/a' });
    assert.equal(recovery.position('/a'), undefined);
  });

  it('is registered by the client unless the recovery option is off', () => {
    assert.ok(new BayeuxClient('http://127.0.0.1:1/bayeux').getExtension('recovery') instanceof RecoveryExtension);
    assert.equal(new BayeuxClient({ url: 'http://127.0.0.1:1/bayeux', recovery: false }).getExtension('recovery'),
      undefined);
  });
});

/**
 * A recovery extension on a host that plays the client: what the application gets (in order), the subscribes the
 * extension asks for, and timers run by hand.
 *
 * @param {{maxHeld?: number, maxChannels?: number}} [options]
 */
function gapRig(options) {
  /** @type {any[]} */
  const delivered = [];
  /** @type {{channel: string, onFailure: Function}[]} */
  const subscribes = [];
  /** @type {Map<number, Function>} */
  const timers = new Map();
  let nextTimer = 0;
  let receiving = false;
  /** @type {any[]} */
  const released = [];
  const host = {
    subscribe: (channel, onFailure) => subscribes.push({ channel, onFailure }),
    release: (messages) => {
      released.push(...messages);
      if (!receiving) {
        delivered.push(...released.splice(0));
      }
    },
    setTimeout: (callback) => {
      timers.set(++nextTimer, callback);
      return nextTimer;
    },
    clearTimeout: (handle) => timers.delete(handle),
    timeout: () => 1000,
    log: () => {},
  };
  const recovery = new RecoveryExtension(host, options);
  recovery.incoming({ channel: '/meta/handshake', successful: true, ext: { recovery: true } });
  let id = 0;
  const rig = {
    recovery,
    delivered,
    subscribes,
    timers,
    /** Sends a subscribe to /a through the extension; returns its id. */
    subscribe() {
      const message = { channel: '/meta/subscribe', subscription: '/a', id: String(++id) };
      recovery.outgoing(message);
      return message;
    },
    /** A message of /a with a position, through the extension as the client would pass it. */
    receive(offset, epoch = 'e1') {
      rig.receiveOn('/a', offset, offset, epoch);
    },
    /** A message of any channel with a position, through the extension as the client would pass it. */
    receiveOn(channel, data, offset, epoch = 'e1') {
      receiving = true;
      const out = recovery.incoming({ channel, data, ext: { position: { offset, epoch } } });
      if (out) {
        delivered.push(out);
      }
      receiving = false;
      delivered.push(...released.splice(0));
    },
    reply(request, recovered, offset, epoch = 'e1') {
      recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', id: request.id, successful: true,
        ext: { recovery: { recovered, offset, epoch } } });
    },
    data: () => delivered.map((m) => m.data),
  };
  const first = rig.subscribe();
  recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', id: first.id, successful: true,
    ext: { recovery: { offset: 0, epoch: 'e1' } } });
  return rig;
}

describe('recovery: gaps in offsets', () => {
  it('holds back after a gap, subscribes again from the last one let through, and lets all through in order', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(2);
    rig.receive(4);
    rig.receive(5);
    assert.deepEqual(rig.data(), [1, 2], '4 and 5 held back');
    assert.equal(rig.subscribes.length, 1, 'one recovery at a time');
    const request = rig.subscribe();
    assert.deepEqual(request.ext.recovery, { offset: 2, epoch: 'e1' });
    rig.reply(request, true, 5);
    rig.receive(3);
    rig.receive(4);
    rig.receive(5);
    rig.receive(6);
    assert.deepEqual(rig.data(), [1, 2, 3, 4, 5, 6], 'once each, in order');
    assert.equal(rig.recovery.recovered('/a'), true);
    assert.deepEqual(rig.recovery.stats(), { gapsDetected: 1, gapsRecovered: 1, gapsLost: 0, duplicatesDropped: 2 });
    assert.equal(rig.timers.size, 0, 'no timer left');
  });

  it('fills the gap from messages that come before the reply (long-polling), and ignores the reply then', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(3);
    const request = rig.subscribe();
    rig.receive(2);
    assert.deepEqual(rig.data(), [1, 2, 3]);
    rig.reply(request, true, 3);
    rig.receive(2);
    rig.receive(3);
    rig.receive(4);
    assert.deepEqual(rig.data(), [1, 2, 3, 4]);
    assert.equal(rig.recovery.stats().gapsRecovered, 1);
  });

  it('lets the held ones through in order and accepts the gap on recovered: false', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(2);
    rig.receive(4);
    rig.receive(6);
    const request = rig.subscribe();
    rig.reply(request, false, 8);
    assert.deepEqual(rig.data(), [1, 2, 4, 6]);
    // The server's held live ones (7, 8) come after the reply, then live ones: none is a gap.
    rig.receive(7);
    rig.receive(8);
    rig.receive(9);
    assert.deepEqual(rig.data(), [1, 2, 4, 6, 7, 8, 9]);
    assert.equal(rig.recovery.recovered('/a'), false);
    assert.deepEqual(rig.recovery.stats(), { gapsDetected: 1, gapsRecovered: 0, gapsLost: 1, duplicatesDropped: 0 });
    assert.deepEqual(rig.recovery.position('/a'), { offset: 9, epoch: 'e1' });
  });

  it('gives up on a refused subscribe, on a timeout, and past maxHeld', () => {
    const failed = gapRig();
    failed.receive(1);
    failed.receive(3);
    const request = failed.subscribe();
    failed.recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', id: request.id,
      successful: false, error: '403::subscribe_denied' });
    assert.deepEqual(failed.data(), [1, 3]);
    assert.equal(failed.recovery.stats().gapsLost, 1);

    const late = gapRig();
    late.receive(1);
    late.receive(3);
    late.receive(4);
    assert.equal(late.timers.size, 1);
    [...late.timers.values()][0]();
    assert.deepEqual(late.data(), [1, 3, 4], 'released when no recovery came in time');
    assert.equal(late.recovery.recovered('/a'), false);

    const full = gapRig({ maxHeld: 2 });
    full.receive(1);
    full.receive(5);
    full.receive(3);
    assert.deepEqual(full.data(), [1]);
    full.receive(4);
    assert.deepEqual(full.data(), [1, 3, 4, 5], 'past two held: all in order');
    assert.equal(full.recovery.stats().gapsLost, 1);
    assert.equal(full.timers.size, 0);
  });

  it('sends a subscribe lost with its connection again once connected, and keeps holding meanwhile', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(3);
    const lost = rig.subscribe();
    rig.subscribes[0].onFailure({ channel: '/meta/subscribe', subscription: '/a', id: lost.id, successful: false,
      failure: { reason: 'closed' } });
    assert.deepEqual(rig.data(), [1], 'still held');
    rig.recovery.incoming({ channel: '/meta/connect', successful: true });
    assert.equal(rig.subscribes.length, 2, 'sent again once connected');
    rig.recovery.incoming({ channel: '/meta/connect', successful: true });
    assert.equal(rig.subscribes.length, 2, 'once');
    const again = rig.subscribe();
    rig.reply(again, true, 3);
    rig.receive(2);
    assert.deepEqual(rig.data(), [1, 2, 3]);
    assert.deepEqual(rig.recovery.stats(), { gapsDetected: 1, gapsRecovered: 1, gapsLost: 0, duplicatesDropped: 0 });
  });

  it('drops duplicates without a gap; passes another epoch and messages without a position', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(2);
    rig.receive(2);
    rig.receive(1);
    rig.receive(3);
    assert.deepEqual(rig.data(), [1, 2, 3]);
    assert.equal(rig.recovery.stats().duplicatesDropped, 2);
    assert.equal(rig.subscribes.length, 0);
    rig.receive(7, 'e2');
    rig.receive(8, 'e2');
    assert.deepEqual(rig.data(), [1, 2, 3, 7, 8], 'a new epoch starts from its first message');
    const plain = rig.recovery.incoming({ channel: '/a', data: 'x' });
    assert.equal(plain.data, 'x');
    assert.equal(rig.subscribes.length, 0);
  });

  it('lets the held ones of an old epoch through before the first one of the new epoch', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(3);
    rig.receive(1, 'e2');
    assert.deepEqual(rig.delivered.map((m) => [m.data, m.ext.position.epoch]), [[1, 'e1'], [3, 'e1'], [1, 'e2']]);
    assert.equal(rig.recovery.stats().gapsLost, 1);
  });

  it('lets the resubscribe after a re-handshake end the recovery, not the reply to the earlier subscribe', () => {
    const rig = gapRig();
    rig.receive(1);
    rig.receive(3);
    const first = rig.subscribe();
    const again = rig.subscribe();
    assert.deepEqual(again.ext.recovery, { offset: 1, epoch: 'e1' });
    rig.recovery.incoming({ channel: '/meta/subscribe', subscription: '/a', id: first.id, successful: false,
      error: '402::session_unknown' });
    assert.deepEqual(rig.data(), [1], 'still held');
    rig.reply(again, true, 3);
    rig.receive(2);
    rig.receive(3);
    assert.deepEqual(rig.data(), [1, 2, 3]);
    assert.equal(rig.recovery.recovered('/a'), true);
  });

  it('does not check gaps of channels received only through a wildcard', () => {
    const rig = gapRig();
    const out = [1, 3, 2].map((offset) => rig.recovery.incoming({ channel: '/b', data: offset,
      ext: { position: { offset, epoch: 'e1' } } }));
    assert.deepEqual(out.map((m) => m && m.data), [1, 3, 2]);
    assert.deepEqual(rig.recovery.position('/b'), { offset: 3, epoch: 'e1' });
  });

  // The finding: a wildcard over ever new channels made the extension keep one position per channel ever seen.
  it('keeps at most maxChannels positions, forgetting the least recently used, and gives up its gap', () => {
    const rig = gapRig({ maxChannels: 3 });
    rig.receive(1);
    rig.receive(3);
    assert.deepEqual(rig.data(), [1]);
    assert.equal(rig.subscribes.length, 1);
    // Every message reaches the application once (the one whose channel made /a's forgotten right after /a's held).
    for (let i = 0; i < 5000; i++) {
      rig.receiveOn(`/w/${i}`, i, 1);
      assert.ok(rig.recovery.channels() <= 3);
    }
    assert.deepEqual(rig.delivered.filter((m) => m.channel.startsWith('/w/')).map((m) => m.data),
      Array.from({ length: 5000 }, (_, i) => i));
    assert.equal(rig.recovery.channels(), 3);
    assert.equal(rig.recovery.channelsForgotten(), 5000 - 2);
    assert.deepEqual(rig.recovery.position('/w/4999'), { offset: 1, epoch: 'e1' });
    assert.equal(rig.recovery.position('/w/0'), undefined);
    // /a was the least recently used first: its gap given up, the held 3 let through once, in order.
    assert.equal(rig.recovery.position('/a'), undefined);
    assert.deepEqual(rig.delivered.filter((m) => m.channel === '/a').map((m) => m.data), [1, 3]);
    assert.equal(rig.recovery.stats().gapsLost, 1);
    assert.equal(rig.timers.size, 0);
    // A channel used again is kept while new ones come.
    rig.recovery.incoming({ channel: '/w/4998', ext: { position: { offset: 2, epoch: 'e1' } } });
    rig.recovery.incoming({ channel: '/w/new', ext: { position: { offset: 1, epoch: 'e1' } } });
    assert.deepEqual(rig.recovery.position('/w/4998'), { offset: 2, epoch: 'e1' });
    assert.equal(rig.recovery.position('/w/4997'), undefined);
  });

  it('takes the bound from the client option recoveryMaxChannels, checked', () => {
    const client = new BayeuxClient({ url: 'http://127.0.0.1:1/bayeux', recoveryMaxChannels: 2 });
    const recovery = /** @type {RecoveryExtension} */ (client.getExtension('recovery'));
    for (let i = 0; i < 10; i++) {
      recovery.incoming({ channel: `/w/${i}`, ext: { position: { offset: 1, epoch: 'e1' } } });
    }
    assert.equal(recovery.channels(), 2);
    assert.throws(() => new BayeuxClient({ url: 'http://127.0.0.1:1/bayeux', recoveryMaxChannels: 0 }),
      /recoveryMaxChannels/);
    assert.throws(() => new RecoveryExtension(null, { maxChannels: 0 }), /maxChannels/);
  });
});

describe('timesync', () => {
  it('averages lag and offset over the last samples', () => {
    const sync = new TimeSyncExtension({ maxSamples: 2 });
    const now = Date.now();
    const out = sync.outgoing({ channel: '/meta/connect' });
    assert.deepEqual(Object.keys(out.ext.timesync), ['tc', 'l', 'o']);
    // A server 10 s ahead, 100 ms away each way, holding the connect for 1 s.
    for (let i = 0; i < 3; i++) {
      sync.incoming({ channel: '/meta/connect', ext: { timesync: { tc: now - 1200, ts: now - 1100 + 10000, p: 1000 } } });
    }
    assert.equal(sync.samples.length, 2);
    assert.ok(Math.abs(sync.getNetworkLag() - 100) <= 2, `lag ${sync.getNetworkLag()}`);
    assert.ok(Math.abs(sync.getTimeOffset() - 10000) <= 2, `offset ${sync.getTimeOffset()}`);
  });
});

describe('binary', () => {
  it('leaves the caller\'s object alone and other messages untouched', () => {
    const binary = new BinaryExtension();
    const data = { data: new Uint8Array([1, 2, 3]), last: true };
    const out = binary.outgoing({ channel: '/f', data, ext: { binary: {} } });
    assert.equal(typeof out.data.data, 'string');
    assert.ok(data.data instanceof Uint8Array);
    const plain = { channel: '/f', data: { data: 'abc' } };
    assert.equal(binary.incoming(plain).data.data, 'abc');
  });
});

describe('the extension chain', () => {
  it('keeps a message going past an extension that throws, and reports it', () => {
    const reports = [];
    const chain = new ExtensionChain((error, context) => reports.push([error.message, context.channel]));
    chain.add('broken', { outgoing() { throw new Error('bad'); } });
    chain.add('tagger', { outgoing(m) { m.tagged = true; return m; } });
    assert.equal(chain.add('tagger', {}), false);
    assert.equal(chain.outgoing({ channel: '/a' }).tagged, true);
    assert.deepEqual(reports, [['bad', 'broken']]);
  });

  it('runs outgoing in registration order and incoming in reverse, and lets one drop a message', () => {
    const order = [];
    const chain = new ExtensionChain(() => {});
    chain.add('one', { outgoing(m) { order.push('out1'); return m; }, incoming(m) { order.push('in1'); return m; } });
    chain.add('two', { outgoing(m) { order.push('out2'); return m; }, incoming(m) { order.push('in2'); return null; } });
    chain.outgoing({ channel: '/a' });
    assert.equal(chain.incoming({ channel: '/a' }), null);
    assert.deepEqual(order, ['out1', 'out2', 'in2']);
  });

  it('calls registered and unregistered on the client', () => {
    const client = new BayeuxClient('http://127.0.0.1:9/bayeux');
    const calls = [];
    const extension = { registered: (name, c) => calls.push([name, c === client]), unregistered: () => calls.push('gone') };
    assert.equal(client.registerExtension('x', extension), true);
    assert.equal(client.getExtension('x'), extension);
    assert.equal(client.unregisterExtension('x'), true);
    assert.equal(client.unregisterExtension('x'), false);
    assert.deepEqual(calls, [['x', true], 'gone']);
  });
});
