// binary: bytes in `data.data` travel as Z85 text when the message carries `ext.binary`, and arrive as an
// ArrayBuffer. Sent with `client.publishBinary()`.

import { z85Decode, z85Encode } from '../z85.js';

export class BinaryExtension {
  /** @param {any} message */
  outgoing(message) {
    if (isBinary(message) && message.data.data != null && typeof message.data.data !== 'string') {
      // A copy: the caller's object stays as it was.
      message.data = { ...message.data, data: z85Encode(message.data.data) };
    }
    return message;
  }

  /** @param {any} message */
  incoming(message) {
    if (isBinary(message) && typeof message.data.data === 'string') {
      message.data = { ...message.data, data: z85Decode(message.data.data) };
    }
    return message;
  }
}

/** @param {any} message */
function isBinary(message) {
  return !message.channel.startsWith('/meta/') && message.ext?.binary !== undefined
    && message.data !== null && typeof message.data === 'object';
}
