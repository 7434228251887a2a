// Z85, channel names and the back-off: pure functions.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { backoffDelay, channelMatches, isValidChannel, z85Decode, z85Encode } from '../../src/index.js';
import { dispatchKeys } from '../../src/channels.js';

describe('z85', () => {
  it('encodes the test vector of the specification', () => {
    const bytes = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B];
    assert.equal(z85Encode(bytes), 'HelloWorld');
    assert.deepEqual([...new Uint8Array(z85Decode('HelloWorld'))], bytes);
  });

  it('round-trips every length, including the 1 to 3 trailing bytes of the CometD variant', () => {
    for (let length = 0; length <= 17; length++) {
      for (const fill of [0, 0xff, -1]) {
        const bytes = Uint8Array.from({ length }, (_, i) => (fill < 0 ? (i * 37 + 11) % 256 : fill));
        const text = z85Encode(bytes);
        assert.equal(text.length, Math.floor(length / 4) * 5 + (length % 4 === 0 ? 0 : (length % 4) + 1));
        assert.deepEqual(new Uint8Array(z85Decode(text)), bytes, `length ${length} fill ${fill}`);
      }
    }
  });

  it('encodes the bytes a view covers, not its whole buffer', () => {
    const buffer = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]).buffer;
    assert.equal(z85Encode(new Uint8Array(buffer, 4, 4)), z85Encode([5, 6, 7, 8]));
    assert.equal(z85Encode(new DataView(buffer, 0, 4)), z85Encode([1, 2, 3, 4]));
  });

  it('refuses text that is not Z85', () => {
    assert.throws(() => z85Decode('Hello"orld'), /Not Z85/);
    assert.throws(() => z85Decode('H'), /Not Z85/);
    assert.throws(() => z85Decode('#####'), /out of range/);
    assert.throws(() => z85Encode('text'), TypeError);
  });
});

describe('channels', () => {
  it('validates names as the server does', () => {
    for (const good of ['/a', '/a/b', '/chat/room 1', '/x/{y}~z', '/a/*', '/a/**', '/**']) {
      assert.equal(isValidChannel(good, true), true, good);
    }
    for (const bad of ['', '/', 'a', '/a/', '/a//b', '/a/*/b', '/a/b*', '/a/ü', '/a/"']) {
      assert.equal(isValidChannel(bad, true), false, bad);
    }
    assert.equal(isValidChannel('/a/*', false), false);
  });

  it('dispatches a name to itself, its parent\'s * and every ancestor\'s **', () => {
    assert.deepEqual(dispatchKeys('/a/b/c'), ['/a/b/c', '/a/b/*', '/a/b/**', '/a/**', '/**']);
    assert.deepEqual(dispatchKeys('/a'), ['/a', '/*', '/**']);
    assert.equal(channelMatches('/a/*', '/a/b'), true);
    assert.equal(channelMatches('/a/*', '/a/b/c'), false);
    assert.equal(channelMatches('/a/**', '/a/b/c'), true);
    assert.equal(channelMatches('/a/**', '/a'), false);
  });
});

describe('back-off', () => {
  it('doubles from the increment up to the cap, with half of it random', () => {
    const low = () => 0;
    const high = () => 0.999999;
    assert.equal(backoffDelay(0, 1000, 60000, low), 0);
    assert.equal(backoffDelay(1, 1000, 60000, low), 500);
    assert.equal(backoffDelay(1, 1000, 60000, high), 1000);
    assert.equal(backoffDelay(3, 1000, 60000, low), 2000);
    assert.equal(backoffDelay(3, 1000, 60000, high), 4000);
    assert.equal(backoffDelay(20, 1000, 60000, high), 60000);
    assert.equal(backoffDelay(10000, 1000, 60000, low), 30000);
  });
});
