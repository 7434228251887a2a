// ack: asks the server to keep every message it sends until a later /meta/connect proves it arrived, so nothing
// is lost with a dropped response or socket. The client's part is to echo, in each connect, the number of the last
// connect reply it processed; the server resends whatever came after.

export class AckExtension {
  constructor() {
    /** Whether the server agreed, in the last handshake reply. */
    this.enabled = false;
    /** The number of the last connect reply processed. @private */
    this.lastBatch = 0;
  }

  /** @param {any} message */
  outgoing(message) {
    if (message.channel === '/meta/handshake') {
      this.enabled = false;
      this.lastBatch = 0;
      message.ext = { ...message.ext, ack: true };
    } else if (message.channel === '/meta/connect' && this.enabled) {
      message.ext = { ...message.ext, ack: this.lastBatch };
    }
    return message;
  }

  /** @param {any} message */
  incoming(message) {
    if (message.channel === '/meta/handshake') {
      this.enabled = message.successful === true && message.ext?.ack === true;
    } else if (message.channel === '/meta/connect' && this.enabled && message.successful === true) {
      // Replies are processed after the messages that came with them, so this number covers only what was handled.
      const batch = message.ext?.ack;
      if (typeof batch === 'number' && Number.isInteger(batch)) {
        this.lastBatch = batch;
      }
    }
    return message;
  }
}
