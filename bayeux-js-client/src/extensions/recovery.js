// recovery: against a server that offers it in its handshake reply (ext.recovery === true; a Redis backplane does),
// remembers the position (ext.position: {offset, epoch}) of the last message received on each channel and sends it
// with every subscribe to that channel (ext.recovery: {offset, epoch}, or {} while it has none), so that after a
// reconnect or a re-handshake, on the same server or another node, the server delivers what was missed, once and in
// order, before the live messages. The subscribe reply says whether it could (ext.recovery.recovered). Positions
// survive re-handshakes; an unsubscribe forgets its channel's. The wire is in docs/protocol.md, "Recovery".

/** @param {unknown} channel @returns {boolean} */
const isPlainBroadcast = (channel) => typeof channel === 'string' && channel.startsWith('/')
  && !channel.startsWith('/meta/') && !channel.startsWith('/service/') && !channel.endsWith('/*')
  && !channel.endsWith('/**');

/** @param {any} value @returns {{offset: number, epoch: string} | null} */
const positionOf = (value) => (value && typeof value === 'object' && typeof value.offset === 'number'
  && typeof value.epoch === 'string' ? { offset: value.offset, epoch: value.epoch } : null);

export class RecoveryExtension {
  constructor() {
    /** Whether the last successful handshake reply offered recovery. */
    this.offered = false;
    /** @private @type {Map<string, {offset: number, epoch: string}>} */
    this.positions = new Map();
    /** @private @type {Map<string, boolean>} */
    this.outcomes = new Map();
  }

  /**
   * @param {string} channel
   * @returns {{offset: number, epoch: string} | undefined} the position of the last message received on it
   */
  position(channel) {
    const position = this.positions.get(channel);
    return position && { ...position };
  }

  /**
   * @param {string} channel
   * @returns {boolean | undefined} the outcome of the last subscribe to it that sent a position
   */
  recovered(channel) {
    return this.outcomes.get(channel);
  }

  /** @param {any} message */
  outgoing(message) {
    if (message.channel === '/meta/subscribe' && this.offered && isPlainBroadcast(message.subscription)) {
      const position = this.positions.get(message.subscription);
      message.ext = { ...message.ext, recovery: position ? { ...position } : {} };
    } else if (message.channel === '/meta/unsubscribe' && typeof message.subscription === 'string') {
      this.positions.delete(message.subscription);
      this.outcomes.delete(message.subscription);
    }
    return message;
  }

  /** @param {any} message */
  incoming(message) {
    const channel = message.channel;
    if (channel === '/meta/handshake') {
      if (message.successful === true) {
        this.offered = message.ext?.recovery === true;
      }
    } else if (channel === '/meta/subscribe') {
      const outcome = message.ext?.recovery;
      if (message.successful === true && outcome && typeof outcome === 'object'
          && typeof message.subscription === 'string') {
        if (typeof outcome.recovered === 'boolean') {
          this.outcomes.set(message.subscription, outcome.recovered);
        }
        const current = positionOf(outcome);
        const ours = this.positions.get(message.subscription);
        // The server's position is taken when ours is missing or of another epoch, or when a failed recovery left
        // ours behind for good; otherwise the missed messages move ours forward as they arrive.
        if (current && (!ours || ours.epoch !== current.epoch
            || (outcome.recovered === false && current.offset > ours.offset))) {
          this.positions.set(message.subscription, current);
        }
      }
    } else if (typeof channel === 'string' && !channel.startsWith('/meta/')) {
      const received = positionOf(message.ext?.position);
      if (received) {
        const ours = this.positions.get(channel);
        if (!ours || ours.epoch !== received.epoch || received.offset > ours.offset) {
          this.positions.set(channel, received);
        }
      }
    }
    return message;
  }
}
