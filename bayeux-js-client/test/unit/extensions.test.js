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
