// Z85 (ZeroMQ RFC 32) with the extension the CometD clients use for lengths that are not a multiple of 4: a final
// group of 1 to 3 bytes is padded with zero bytes, encoded, and written as its first 2 to 4 characters. A decoder
// pads such a group with the highest digit, which restores the dropped bytes' positions without carrying into the
// kept ones.

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) {
  DIGITS[ALPHABET.charCodeAt(i)] = i;
}

/**
 * @param {ArrayBuffer | ArrayBufferView | number[]} input
 * @returns {Uint8Array}
 */
export function toBytes(input) {
  if (input instanceof Uint8Array) {
    return input;
  }
  if (input instanceof ArrayBuffer) {
    return new Uint8Array(input);
  }
  if (ArrayBuffer.isView(input)) {
    return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  }
  if (Array.isArray(input)) {
    return Uint8Array.from(input);
  }
  throw new TypeError('Expected an ArrayBuffer, a typed array, a DataView or an array of bytes');
}

/**
 * Encodes bytes as Z85 text.
 *
 * @param {ArrayBuffer | ArrayBufferView | number[]} input
 * @returns {string}
 */
export function z85Encode(input) {
  const bytes = toBytes(input);
  let text = '';
  for (let offset = 0; offset < bytes.length; offset += 4) {
    const count = Math.min(4, bytes.length - offset);
    let value = 0;
    for (let i = 0; i < 4; i++) {
      value = value * 256 + (i < count ? bytes[offset + i] : 0);
    }
    let group = '';
    for (let i = 0; i < 5; i++) {
      group = ALPHABET[value % 85] + group;
      value = Math.floor(value / 85);
    }
    text += group.slice(0, count + 1);
  }
  return text;
}

/**
 * Decodes Z85 text.
 *
 * @param {string} text
 * @returns {ArrayBuffer}
 * @throws {Error} if the text holds a character outside the alphabet or a lone final character
 */
export function z85Decode(text) {
  if (typeof text !== 'string' || text.length % 5 === 1) {
    throw new Error('Not Z85 text');
  }
  const out = new Uint8Array(Math.floor(text.length / 5) * 4 + Math.max(0, (text.length % 5) - 1));
  let written = 0;
  for (let offset = 0; offset < text.length; offset += 5) {
    const count = Math.min(5, text.length - offset);
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const code = i < count ? text.charCodeAt(offset + i) : 35; // '#', the highest digit
      const digit = code < 128 ? DIGITS[code] : -1;
      if (digit < 0) {
        throw new Error('Not Z85 text: ' + JSON.stringify(text[offset + i]));
      }
      value = value * 85 + digit;
    }
    if (value > 0xffffffff) {
      throw new Error('Not Z85 text: group out of range');
    }
    for (let i = 0; i < count - 1; i++) {
      out[written++] = Math.floor(value / 2 ** (24 - 8 * i)) % 256;
    }
  }
  return out.buffer;
}
