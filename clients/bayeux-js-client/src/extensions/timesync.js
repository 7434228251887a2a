// timesync: measures the offset between this clock and the server's, from the times carried by /meta messages.

const SAMPLES = 10;

export class TimeSyncExtension {
  /** @param {{maxSamples?: number}} [options] */
  constructor(options = {}) {
    /** @private */
    this.maxSamples = Math.max(1, options.maxSamples ?? SAMPLES);
    /** @private @type {{lag: number, offset: number}[]} */
    this.samples = [];
    /** @private */
    this.lag = 0;
    /** @private */
    this.offset = 0;
  }

  /** @param {any} message */
  outgoing(message) {
    if (typeof message.channel === 'string' && message.channel.startsWith('/meta/')) {
      message.ext = { ...message.ext, timesync: { tc: Date.now(), l: this.lag, o: this.offset } };
    }
    return message;
  }

  /** @param {any} message */
  incoming(message) {
    const sync = message.ext?.timesync;
    if (!sync || typeof sync.tc !== 'number' || typeof sync.ts !== 'number') {
      return message;
    }
    const now = Date.now();
    const held = typeof sync.p === 'number' ? sync.p : 0;
    const lag = Math.max(0, (now - sync.tc - held) / 2);
    const offset = sync.ts - sync.tc - lag;
    this.samples.push({ lag, offset });
    if (this.samples.length > this.maxSamples) {
      this.samples.shift();
    }
    this.lag = Math.round(this.samples.reduce((sum, s) => sum + s.lag, 0) / this.samples.length);
    this.offset = Math.round(this.samples.reduce((sum, s) => sum + s.offset, 0) / this.samples.length);
    return message;
  }

  /** @returns {number} milliseconds to add to this clock to get the server's */
  getTimeOffset() {
    return this.offset;
  }

  /** @returns {number} the estimated one-way network delay, in milliseconds */
  getNetworkLag() {
    return this.lag;
  }

  /** @returns {number} the server's clock now, estimated, in epoch milliseconds */
  getServerTime() {
    return Date.now() + this.offset;
  }
}
