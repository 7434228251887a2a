// recovery: against a server that offers it in its handshake reply (ext.recovery === true; a Redis backplane does),
// remembers the position (ext.position: {offset, epoch}) of the last message received on each channel and sends it
// with every subscribe to that channel (ext.recovery: {offset, epoch}, or {} while it has none), so that after a
// reconnect or a re-handshake, on the same server or another node, the server delivers what was missed, once and in
// order, before the live messages. The subscribe reply says whether it could (ext.recovery.recovered). Positions
// survive re-handshakes; an unsubscribe forgets its channel's. The wire is in docs/protocol.md, "Recovery".
//
// Gaps: with a host (the client gives one), the offsets of each channel subscribed to (plain channels only) are
// checked while the session lives. A message of the same epoch more than one past the last one let through means
// messages were lost on the way (written by the server into a connection that died while the session survived):
// it and the later ones of the channel are held back, and the channel is subscribed to again with the position of
// the last one let through (one such recovery at a time per channel). With recovered: true the missing ones come and
// everything is let through in offset order. A subscribe lost with its connection is sent again once the client is
// connected again (a resubscribe after a re-handshake, which carries the same position, takes its place). With
// recovered: false, a subscribe the server refused, more than maxHeld held, or no end within the timeout, the held
// ones are let through in order and the gap is accepted (recovered(channel) is then false and stats().gapsLost counts
// it). Messages at or below the last one let through (same epoch) are dropped as
// duplicates. Messages without a position, of another epoch, or of channels received only through wildcards pass.
//
// Bounded: at most maxChannels channels' positions are kept (1000 by default), those received through a wildcard
// included, the least recently used forgotten first (a gap it was recovering is given up, its held messages let
// through in order), so that a wildcard over ever new channels cannot grow the client's memory without end.

/** @param {unknown} channel @returns {boolean} */
const isPlainBroadcast = (channel) => typeof channel === 'string' && channel.startsWith('/')
  && !channel.startsWith('/meta/') && !channel.startsWith('/service/') && !channel.endsWith('/*')
  && !channel.endsWith('/**');

/** @param {any} value @returns {{offset: number, epoch: string} | null} */
const positionOf = (value) => (value && typeof value === 'object' && typeof value.offset === 'number'
  && typeof value.epoch === 'string' ? { offset: value.offset, epoch: value.epoch } : null);

/**
 * What the extension needs of its client to recover gaps; the client gives one.
 *
 * @typedef {object} RecoveryHost
 * @property {(channel: string, onFailure: (reply: any) => void) => void} subscribe sends a /meta/subscribe to the
 *   channel (the extension adds the position as it goes out); `onFailure` gets a failed reply the client made itself
 * @property {(messages: any[]) => void} release lets held messages through, in order, after the message being handled
 * @property {(callback: () => void, delay: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 * @property {() => number} timeout the longest a gap is held open, in milliseconds
 * @property {(level: string, ...args: any[]) => void} log
 */

/**
 * One channel's position and the recovery of a gap in it.
 *
 * @typedef {object} Track
 * @property {boolean} plain subscribed to as a plain channel: gaps are recovered
 * @property {string | null} epoch
 * @property {number} last the offset of the last message let through
 * @property {number} accepted after a failed recovery: offsets up to this one pass without counting as a gap
 * @property {Map<number, any>} held
 * @property {boolean} recovering
 * @property {string | null} awaiting the id of the subscribe whose reply ends the recovery
 * @property {boolean} resend its subscribe was lost with its connection: sent again once connected again
 * @property {string | null} ignored the id of the subscribe of a recovery that ended without its reply
 * @property {any} timer
 */

/** @returns {Track} */
const newTrack = () => ({
  plain: false, epoch: null, last: 0, accepted: 0, held: new Map(), recovering: false, awaiting: null,
  resend: false, ignored: null, timer: undefined,
});

/** @param {Track} track @returns {{offset: number, epoch: string} | undefined} */
const positionOfTrack = (track) => (track.epoch === null ? undefined
  : { offset: Math.max(track.last, track.accepted), epoch: track.epoch });

export class RecoveryExtension {
  /**
   * @param {RecoveryHost | null} [host] without one, the extension only keeps and sends positions
   * @param {{maxHeld?: number, maxChannels?: number}} [options] the most messages of one channel held back, and the
   *   most channels whose position is kept (1000 each by default)
   */
  constructor(host = null, options = {}) {
    /** Whether the last successful handshake reply offered recovery. */
    this.offered = false;
    /** @private */
    this.host = host;
    /** @private */
    this.maxHeld = options.maxHeld ?? 1000;
    /** @private */
    this.maxChannels = options.maxChannels ?? 1000;
    if (!Number.isInteger(this.maxChannels) || this.maxChannels < 1) {
      throw new TypeError(`maxChannels must be an integer of at least 1, not ${this.maxChannels}`);
    }
    /** @private Per channel, least recently used first (a Map keeps insertion order). @type {Map<string, Track>} */
    this.tracks = new Map();
    /** @private @type {Map<string, boolean>} */
    this.outcomes = new Map();
    /** @private */
    this.counts = { gapsDetected: 0, gapsRecovered: 0, gapsLost: 0, duplicatesDropped: 0 };
    /** @private */
    this.forgotten = 0;
  }

  /** @returns {number} how many channels' positions are kept now (at most maxChannels) */
  channels() {
    return this.tracks.size;
  }

  /** @returns {number} how many channels' positions were forgotten to stay within maxChannels */
  channelsForgotten() {
    return this.forgotten;
  }

  /**
   * @private
   * @param {string} channel
   * @param {any[]} release where the held messages of a forgotten channel's recovery go, to be let through
   * @returns {Track} the channel's track, made the most recently used (and made, forgetting the least recently used
   *   ones past maxChannels, if new)
   */
  track(channel, release) {
    let track = this.tracks.get(channel);
    if (track) {
      this.tracks.delete(channel);
      this.tracks.set(channel, track);
      return track;
    }
    track = newTrack();
    this.tracks.set(channel, track);
    for (const [eldest, evicted] of this.tracks) {
      if (this.tracks.size <= this.maxChannels) {
        break;
      }
      if (evicted === track) {
        continue;
      }
      this.tracks.delete(eldest);
      this.forgotten++;
      this.outcomes.delete(eldest);
      if (evicted.recovering || evicted.held.size > 0) {
        release.push(...this.giveUp(eldest, evicted,
          `its channel's position was forgotten (more than ${this.maxChannels} channels)`));
      }
      this.stopTimer(evicted);
    }
    return track;
  }

  /**
   * @param {string} channel
   * @returns {{offset: number, epoch: string} | undefined} the position of the last message let through on it (or
   *   the server's, after a failed recovery)
   */
  position(channel) {
    const track = this.tracks.get(channel);
    return track && positionOfTrack(track);
  }

  /**
   * @param {string} channel
   * @returns {boolean | undefined} the outcome of the last recovery of it (a subscribe that sent a position, or a gap)
   */
  recovered(channel) {
    return this.outcomes.get(channel);
  }

  /** @returns {{gapsDetected: number, gapsRecovered: number, gapsLost: number, duplicatesDropped: number}} */
  stats() {
    return { ...this.counts };
  }

  /** @param {any} message */
  outgoing(message) {
    if (message.channel === '/meta/subscribe' && this.offered && isPlainBroadcast(message.subscription)) {
      /** @type {any[]} */
      const release = [];
      const track = this.track(message.subscription, release);
      this.releaseAll(release);
      track.plain = true;
      if (track.recovering) {
        // This subscribe (ours, or a resubscribe after a re-handshake) carries the position the held messages wait
        // on: its reply ends the recovery.
        track.awaiting = message.id === undefined ? null : String(message.id);
        track.resend = false;
      }
      const position = positionOfTrack(track);
      message.ext = { ...message.ext, recovery: position ? { ...position } : {} };
    } else if (message.channel === '/meta/unsubscribe' && typeof message.subscription === 'string') {
      const track = this.tracks.get(message.subscription);
      if (track) {
        this.stopTimer(track);
        this.tracks.delete(message.subscription);
      }
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
      return message;
    }
    if (channel === '/meta/connect') {
      if (message.successful === true) {
        this.resendLost();
      }
      return message;
    }
    if (channel === '/meta/subscribe') {
      if (typeof message.subscription === 'string') {
        this.releaseAll(this.subscribeReply(message.subscription, message));
      }
      return message;
    }
    if (typeof channel !== 'string' || channel.startsWith('/meta/')) {
      return message;
    }
    const received = positionOf(message.ext?.position);
    if (!received) {
      return message;
    }
    return this.delivery(channel, received, message);
  }

  /** @private Connected again: the recoveries whose subscribe was lost with the connection send it again. */
  resendLost() {
    for (const [channel, track] of this.tracks) {
      if (track.recovering && track.resend) {
        track.resend = false;
        this.sendRecovery(channel);
      }
    }
  }

  /** @private @param {string} channel */
  sendRecovery(channel) {
    // A failure the client makes itself does not pass the extensions: it is handed back here.
    this.host?.subscribe(channel, (reply) => this.releaseAll(this.subscribeReply(channel, reply)));
  }

  /**
   * @private
   * @param {string} subscription
   * @param {any} reply
   * @returns {any[]} the messages to let through
   */
  subscribeReply(subscription, reply) {
    let track = this.tracks.get(subscription);
    const id = reply.id === undefined ? null : String(reply.id);
    const ours = !!track && track.recovering && (track.awaiting === null || track.awaiting === id);
    const outcome = reply.ext?.recovery;
    if (ours && track && reply.successful !== true && reply.failure) {
      // Lost with its connection, not refused: the held messages wait for the client to be connected again (or for
      // a re-handshake, whose resubscribe carries the same position), within the timeout.
      track.awaiting = null;
      track.resend = true;
      return [];
    }
    if (reply.successful !== true || !outcome || typeof outcome !== 'object') {
      return ours && track ? this.giveUp(subscription, track, 'its subscribe failed') : [];
    }
    const current = positionOf(outcome);
    /** @type {any[]} */
    let release = [];
    if (!track) {
      track = this.track(subscription, release);
    }
    if (typeof outcome.recovered === 'boolean' && !(id !== null && id === track.ignored)) {
      this.outcomes.set(subscription, outcome.recovered);
    }
    if (ours && !(outcome.recovered === true && current && current.epoch === track.epoch)) {
      release = release.concat(this.giveUp(subscription, track, 'the server could not recover it'));
    } else if (ours) {
      // Everything after our position comes now, then live ones; a fresh timeout covers those being lost in turn.
      this.startTimer(subscription, track);
      return release;
    }
    if (current && !track.recovering) {
      if (track.epoch === null || track.epoch !== current.epoch) {
        // Of another epoch (or none yet): the server's position is ours; what comes next may start anywhere up to one
        // past it (live messages the server held during the subscribe come after the reply).
        track.epoch = current.epoch;
        track.last = 0;
        track.accepted = current.offset;
      } else if (outcome.recovered === false && current.offset > Math.max(track.last, track.accepted)) {
        track.accepted = current.offset;
      }
    }
    return release;
  }

  /**
   * @private
   * @param {string} channel
   * @param {{offset: number, epoch: string}} received
   * @param {any} message
   * @returns {any} the message, or null if held back or dropped
   */
  delivery(channel, received, message) {
    /** @type {any[]} */
    const release = [];
    const track = this.track(channel, release);
    let pass;
    let startRecovery = false;
    if (track.epoch === null || track.epoch !== received.epoch) {
      // A new epoch (or the first position): what is held of the old one goes first, in order.
      if (track.recovering) {
        release.push(...this.giveUp(channel, track, 'its epoch changed'));
      }
      track.epoch = received.epoch;
      track.last = received.offset;
      track.accepted = 0;
      pass = release.length === 0;
      if (!pass) {
        release.push(message);
      }
    } else if (!this.host || !track.plain) {
      // Without gap recovery (or through a wildcard only) messages pass as they come; the position moves up.
      track.last = Math.max(track.last, received.offset);
      pass = true;
    } else {
      const offset = received.offset;
      if (offset <= track.last || track.held.has(offset)) {
        this.counts.duplicatesDropped++;
        pass = false;
      } else if (offset === track.last + 1 || (track.held.size === 0 && offset <= track.accepted + 1)) {
        track.last = offset;
        pass = true;
        this.releaseFollowing(channel, track, release);
      } else if (track.held.size >= this.maxHeld) {
        track.held.set(offset, message);
        release.push(...this.giveUp(channel, track, `more than ${this.maxHeld} messages held`));
        pass = false;
      } else {
        track.held.set(offset, message);
        pass = false;
        if (!track.recovering) {
          startRecovery = true;
          track.recovering = true;
          track.awaiting = null;
          this.counts.gapsDetected++;
          this.startTimer(channel, track);
        }
      }
    }
    if (startRecovery) {
      this.sendRecovery(channel);
    }
    this.releaseAll(release);
    return pass ? message : null;
  }

  /**
   * @private
   * @param {string} channel
   * @param {Track} track
   * @param {any[]} release the held messages that now follow on are added to it
   */
  releaseFollowing(channel, track, release) {
    const offsets = [...track.held.keys()].sort((a, b) => a - b);
    for (const offset of offsets) {
      if (offset > track.last + 1) {
        break;
      }
      const held = track.held.get(offset);
      track.held.delete(offset);
      if (offset <= track.last) {
        this.counts.duplicatesDropped++;
      } else {
        track.last = offset;
        release.push(held);
      }
    }
    if (track.last >= track.accepted) {
      track.accepted = 0;
    }
    if (track.recovering && track.held.size === 0) {
      this.end(track);
      this.counts.gapsRecovered++;
      this.outcomes.set(channel, true);
    }
  }

  /**
   * Ends a recovery without the missing messages: the held ones go, in order, and the gap is accepted.
   *
   * @private
   * @param {string} channel
   * @param {Track} track
   * @param {string} why
   * @returns {any[]}
   */
  giveUp(channel, track, why) {
    const offsets = [...track.held.keys()].sort((a, b) => a - b);
    const release = offsets.map((offset) => track.held.get(offset));
    if (offsets.length > 0) {
      track.last = Math.max(track.last, offsets[offsets.length - 1]);
    }
    track.held.clear();
    if (track.recovering) {
      track.ignored = track.awaiting;
      this.end(track);
      this.counts.gapsLost++;
      this.outcomes.set(channel, false);
      this.host?.log('info', `Messages of ${channel} were lost on the way and could not be recovered (${why}); `
        + `${release.length} held back let through`);
    }
    return release;
  }

  /** @private @param {Track} track */
  end(track) {
    track.recovering = false;
    track.awaiting = null;
    track.resend = false;
    this.stopTimer(track);
  }

  /** @private @param {string} channel @param {Track} track */
  startTimer(channel, track) {
    this.stopTimer(track);
    const host = this.host;
    if (!host) {
      return;
    }
    const timeout = host.timeout();
    track.timer = host.setTimeout(() => {
      track.timer = undefined;
      if (this.tracks.get(channel) === track && track.recovering) {
        this.releaseAll(this.giveUp(channel, track, `no recovery within ${timeout} ms`));
      }
    }, timeout);
  }

  /** @private @param {Track} track */
  stopTimer(track) {
    if (track.timer !== undefined) {
      this.host?.clearTimeout(track.timer);
      track.timer = undefined;
    }
  }

  /** @private @param {any[]} messages */
  releaseAll(messages) {
    if (messages.length > 0 && this.host) {
      this.host.release(messages);
    }
  }
}
