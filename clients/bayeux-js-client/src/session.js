// The session's state machine (the same state names as the Java client):
//
//   disconnected  → handshake()                                   → handshaking
//   handshaking   → handshake reply ok, first connect reply ok    → connected
//   connected     → connect fails (network, HTTP, timeout)        → unconnected   (retry with back-off)
//   unconnected   → connect reply ok                              → connected
//   any           → advice reconnect:"handshake", or unconnected
//                   longer than the session can live              → rehandshaking (re-subscribes when it succeeds)
//   any           → disconnect()                                  → disconnecting → disconnected
//   any           → advice reconnect:"none"                       → disconnected

import { DEFAULT_ADVICE, Status, numberOr } from './defaults.js';
import { CallbackContext, callSafely } from './dispatcher.js';
import { MessagePath } from './message-path.js';

/** @typedef {import('./defaults.js').Message} Message */

/**
 * The delay before retry number `failures`: exponential in the number of consecutive failures, capped, with half of
 * it random so that clients cut off together (a server restart) do not all come back in the same millisecond.
 *
 * @param {number} failures consecutive failures so far (1 for the first retry)
 * @param {number} increment the delay after the first failure, before jitter
 * @param {number} max the cap, before jitter
 * @param {() => number} random a source of numbers in [0, 1)
 * @returns {number} milliseconds
 */
export function backoffDelay(failures, increment, max, random = Math.random) {
  if (failures <= 0) {
    return 0;
  }
  const ceiling = Math.min(max, increment * 2 ** Math.min(failures - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * The session of a client: its state machine, above the message path it owns (and which it answers as the path's
 * `SessionControl`); see BayeuxClient for the API.
 */
export class Session {
  /** @param {import('./context.js').ClientContext} context */
  constructor(context) {
    this.context = context;
    /** One of the `Status` values. @type {string} */
    this.status = Status.DISCONNECTED;
    /** @type {string | null} */
    this.clientId = null;
    /** The last advice received, over the defaults. */
    this.advice = { ...DEFAULT_ADVICE };
    this.path = new MessagePath(context, this);
    /** @type {Set<(status: string, previous: string) => void>} */
    this.statusListeners = new Set();
    /** The one scheduled step of the state machine (next connect or handshake). */
    this.timer = undefined;
    /** @type {(() => void) | null} */
    this.scheduledStep = null;
    /** Consecutive failures, for the back-off. */
    this.failures = 0;
    /** @type {string | null} the id of the connect in flight */
    this.connectId = null;
    this.connectNoHold = true;
    this.connectedSinceHandshake = false;
    this.lastConnectedAt = 0;
    this.reestablish = false;
    /** @type {object | undefined} */
    this.handshakeProps = undefined;
    /** @type {((reply: Message) => void) | null} */
    this.firstHandshakeReply = null;
    /** @type {(() => void) | null} */
    this.removeEnvironmentHooks = null;
    /** Channels whose re-subscription was lost on the way: sent again with the next connect. @type {Set<string>} */
    this.unconfirmed = new Set();
  }

  // ------------------------------------------------------------------------------------------------- handshake

  /**
   * Starts a session: see `BayeuxClient.handshake`.
   *
   * @param {Record<string, any> | ((reply: Message) => void)} [props] fields to add to the handshake message
   * @param {(reply: Message) => void} [callback] called with the first handshake reply
   * @returns {Promise<Message>} resolves with the first handshake reply, successful or not
   */
  handshake(props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: Message) => void} */ (props);
      props = undefined;
    }
    if (this.status !== Status.DISCONNECTED) {
      throw new Error(`handshake() needs a disconnected client; this one is ${this.status}`);
    }
    if (!this.context.config.url) {
      throw new Error('No URL configured: call configure({url}) first');
    }
    this.handshakeProps = props === undefined ? undefined : { ...props };
    this.path.failedTransports.clear();
    this.failures = 0;
    this.reestablish = false;
    this.advice = { ...DEFAULT_ADVICE };
    this.path.transport = null;
    this.context.ensureScheduler();
    this.installEnvironmentHooks();
    this.setStatus(Status.HANDSHAKING);
    return new Promise((resolve) => {
      this.firstHandshakeReply = (reply) => {
        this.firstHandshakeReply = null;
        callSafely(this.context.report, callback, new CallbackContext('callback', '/meta/handshake', reply), reply);
        resolve(reply);
      };
      this.sendHandshake();
    });
  }

  sendHandshake() {
    const path = this.path;
    const candidates = path.candidates();
    if (candidates.length === 0) {
      this.terminate(path.localFailure({ channel: '/meta/handshake' }, 'no transport available'));
      return;
    }
    // A re-handshake stays on the transport that works; a first one starts with the preferred.
    if (!path.transport || !candidates.includes(path.transport)) {
      path.transport = candidates[0];
    }
    const message = {
      ...this.handshakeProps,
      id: path.newId(),
      channel: '/meta/handshake',
      version: '1.0',
      minimumVersion: '1.0',
      supportedConnectionTypes: candidates.map((t) => t.name),
      advice: { timeout: DEFAULT_ADVICE.timeout, interval: 0 },
    };
    path.pending.set(message.id, { kind: 'handshake', message });
    path.sendNow([message], false);
  }

  /** @param {Message} reply */
  onHandshakeReply(reply) {
    if (this.status !== Status.HANDSHAKING && this.status !== Status.REHANDSHAKING) {
      return;
    }
    if (!reply.successful) {
      this.onHandshakeFailure(reply);
      return;
    }
    const offered = Array.isArray(reply.supportedConnectionTypes) ? reply.supportedConnectionTypes : [];
    const chosen = this.path.candidates().find((t) => offered.includes(t.name));
    if (!chosen || typeof reply.clientId !== 'string') {
      const failure = {
        ...reply,
        successful: false,
        error: `301:${offered.join(',')}:connection_types_mismatch`,
        advice: { reconnect: 'none', interval: 0 },
      };
      this.path.notifyMeta(failure);
      this.completeFirstHandshake(failure);
      this.terminate(failure);
      return;
    }
    if (this.path.transport && this.path.transport !== chosen) {
      this.path.transport.abort();
    }
    this.path.transport = chosen;
    this.clientId = reply.clientId;
    this.lastConnectedAt = Date.now();
    this.connectedSinceHandshake = false;
    const reestablish = this.reestablish;
    this.reestablish = true;
    reply.reestablish = reestablish;
    this.path.notifyMeta(reply);
    this.completeFirstHandshake(reply);
    if (this.status !== Status.HANDSHAKING && this.status !== Status.REHANDSHAKING) {
      return; // a listener disconnected
    }
    this.connectNoHold = true;
    this.unconfirmed.clear();
    if (reestablish && this.context.config.autoResubscribe) {
      this.path.batchDepth++;
      this.resubscribe(this.path.subscriptions.channels());
      this.path.batchDepth--;
    }
    // Re-subscriptions and messages queued during the handshake go in the same envelope as the first connect, before
    // it: when its reply says "connected", they have all been processed.
    this.connect(this.path.batchDepth === 0);
  }

  /** @param {Message} reply */
  onHandshakeFailure(reply) {
    this.path.notifyMeta(reply);
    this.completeFirstHandshake(reply);
    if (this.status !== Status.HANDSHAKING && this.status !== Status.REHANDSHAKING) {
      return;
    }
    const reconnect = reply.advice?.reconnect;
    if (reconnect === 'none') {
      this.terminate(reply);
      return;
    }
    this.failures++;
    const interval = numberOr(reply.advice?.interval, this.advice.interval);
    this.schedule(() => this.sendHandshake(), interval + this.backoff());
  }

  /** @param {Message} reply */
  completeFirstHandshake(reply) {
    const complete = this.firstHandshakeReply;
    if (complete) {
      complete(reply);
    }
  }

  /** Forgets the session and handshakes again, keeping subscriptions to send once the new session exists. */
  rehandshake(/** @type {number} */ delay) {
    this.clientId = null;
    this.connectId = null;
    this.setStatus(Status.REHANDSHAKING);
    this.schedule(() => this.sendHandshake(), delay);
  }

  /** @param {string[]} channels channels the application is subscribed to, but the session is not */
  resubscribe(channels) {
    for (const channel of channels) {
      const message = { channel: '/meta/subscribe', subscription: channel };
      this.path.request(message, { kind: 'subscribe', message, resubscribe: true });
    }
  }

  /** @param {string} channel a re-subscription lost with its connection: sent again with the next connect */
  resubscribeLater(channel) {
    this.unconfirmed.add(channel);
  }

  /**
   * Sends again a handshake or a connect that was lost with a transport given up for another.
   *
   * @param {Message} message
   */
  resend(message) {
    if (message.channel === '/meta/handshake') {
      this.sendHandshake();
    } else if (message.id === this.connectId) {
      this.connect();
    }
  }

  // --------------------------------------------------------------------------------------------------- connect

  /** @param {boolean} [withQueued] whether messages waiting in the outbox go first, in the same envelope */
  connect(withQueued = false) {
    const path = this.path;
    if (!this.clientId || !path.transport) {
      return;
    }
    /** @type {Message} */
    const message = {
      id: path.newId(),
      channel: '/meta/connect',
      connectionType: path.transport.name,
      clientId: this.clientId,
    };
    // The first connect of a session, and one after a failure, must come back at once to tell the state.
    if (this.connectNoHold) {
      message.advice = { timeout: 0 };
    }
    this.connectId = message.id;
    path.pending.set(message.id, { kind: 'connect', message });
    if (this.unconfirmed.size > 0) {
      const channels = [...this.unconfirmed].filter((channel) => path.subscriptions.byChannel.has(channel));
      this.unconfirmed.clear();
      path.batchDepth++;
      this.resubscribe(channels);
      path.batchDepth--;
      withQueued = path.batchDepth === 0;
    }
    const queued = withQueued ? path.outbox.splice(0) : [];
    const wait = this.context.config.maxNetworkDelay + (this.connectNoHold ? 0 : this.advice.timeout);
    path.sendNow([...queued, message], true, wait);
  }

  /** @param {Message} reply */
  onConnectReply(reply) {
    if (reply.id !== this.connectId) {
      return; // a superseded connect
    }
    this.connectId = null;
    if (this.status === Status.DISCONNECTING || this.status === Status.DISCONNECTED) {
      this.path.notifyMeta(reply);
      return;
    }
    const reconnect = reply.advice?.reconnect ?? (reply.successful ? 'retry' : (reply.failure ? 'retry' : this.advice.reconnect));
    if (reply.successful) {
      this.failures = 0;
      this.lastConnectedAt = Date.now();
      this.connectedSinceHandshake = true;
      this.connectNoHold = false;
      if (reconnect === 'retry') {
        this.setStatus(Status.CONNECTED);
      }
    }
    this.path.notifyMeta(reply);
    if (this.status === Status.DISCONNECTING || this.status === Status.DISCONNECTED) {
      return; // a listener disconnected
    }
    if (reconnect === 'none') {
      this.terminate(reply);
    } else if (reconnect === 'handshake') {
      // A server that answered has lost the session, not its network: handshake at once. Unless the session never
      // got connected: a server that forgets every new session (one that needs a cookie it never gets, say) must
      // not be flooded with handshakes.
      this.failures = reply.failure || !this.connectedSinceHandshake ? this.failures + 1 : 0;
      this.rehandshake(this.advice.interval + this.backoff());
    } else if (reply.successful) {
      this.schedule(() => this.connect(), this.advice.interval);
    } else {
      this.failures++;
      this.connectNoHold = true;
      this.setStatus(Status.UNCONNECTED);
      // Past the session's lifetime the server has certainly expired it: skip the connect that would say so.
      const lifetime = this.advice.timeout + this.advice.interval + this.advice.maxInterval;
      if (Date.now() - this.lastConnectedAt > lifetime) {
        this.rehandshake(this.backoff());
      } else {
        this.schedule(() => this.connect(), this.advice.interval + this.backoff());
      }
    }
  }

  backoff() {
    const config = this.context.config;
    return backoffDelay(this.failures, config.backoffIncrement, config.maxBackoff, config.random);
  }

  /** @param {Record<string, any>} advice the advice of a /meta/handshake or /meta/connect reply */
  updateAdvice(advice) {
    const next = { ...this.advice, ...advice };
    for (const key of ['interval', 'timeout', 'maxInterval']) {
      next[key] = numberOr(advice[key], this.advice[key]);
    }
    if (advice['multiple-clients'] && !this.advice['multiple-clients']) {
      this.context.log('info', 'Another tab of this browser holds a long poll: polling every', next.interval, 'ms');
    }
    this.advice = next;
  }

  // ------------------------------------------------------------------------------------------------ disconnect

  /**
   * Ends the session: see `BayeuxClient.disconnect`.
   *
   * @param {Record<string, any> | ((reply: Message) => void)} [props] fields to add to the disconnect message
   * @param {(reply: Message) => void} [callback]
   * @returns {Promise<Message>} resolves with the disconnect reply (or a local one when there was no session)
   */
  disconnect(props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: Message) => void} */ (props);
      props = undefined;
    }
    return new Promise((resolve) => {
      const done = (/** @type {Message} */ reply) => {
        callSafely(this.context.report, callback, new CallbackContext('callback', '/meta/disconnect', reply), reply);
        resolve(reply);
      };
      if (this.status === Status.DISCONNECTED) {
        done({ channel: '/meta/disconnect', successful: true });
        return;
      }
      if (this.status === Status.DISCONNECTING) {
        const existing = [...this.path.pending.values()].find((r) => r.kind === 'disconnect');
        if (existing) {
          const previous = existing.done;
          existing.done = (reply) => {
            previous?.(reply);
            done(reply);
          };
          return;
        }
      }
      this.cancelSchedule();
      if (!this.clientId) {
        const reply = { channel: '/meta/disconnect', successful: true };
        this.terminate(reply);
        this.path.notifyMeta(reply);
        done(reply);
        return;
      }
      this.setStatus(Status.DISCONNECTING);
      const message = { ...props, id: this.path.newId(), channel: '/meta/disconnect', clientId: this.clientId };
      this.path.pending.set(message.id, { kind: 'disconnect', message, done });
      this.path.sendNow([message], false);
    });
  }

  /** @param {Message} reply */
  onDisconnectReply(reply) {
    const request = reply.id === undefined ? undefined : this.path.pending.get(String(reply.id));
    if (request && request.kind === 'disconnect') {
      this.path.pending.delete(String(reply.id));
      this.terminate(reply);
      this.path.notifyMeta(reply);
      request.done?.(reply);
      return;
    }
    if (this.status !== Status.DISCONNECTED) {
      // The server ended the session on its own.
      this.terminate(reply);
      this.path.notifyMeta(reply);
    }
  }

  /**
   * Ends everything: state, timers, transports, waiting requests.
   *
   * @param {Message} reason the message that ended the session
   */
  terminate(reason) {
    this.cancelSchedule();
    this.clientId = null;
    this.connectId = null;
    this.path.batchDepth = 0;
    this.setStatus(Status.DISCONNECTED);
    this.path.abandon();
    this.unconfirmed.clear();
    this.removeEnvironmentHooks?.();
    this.removeEnvironmentHooks = null;
    if (this.firstHandshakeReply) {
      this.completeFirstHandshake(reason.channel === '/meta/handshake'
        ? reason : this.path.localFailure({ channel: '/meta/handshake' }, 'disconnected'));
    }
  }

  // ------------------------------------------------------------------------------------------ state and timers

  /** @param {string} status */
  setStatus(status) {
    const previous = this.status;
    if (previous === status) {
      return;
    }
    this.status = status;
    this.context.log('debug', `status ${previous} -> ${status}`);
    for (const listener of [...this.statusListeners]) {
      callSafely(this.context.report, listener, new CallbackContext('status'), status, previous);
    }
  }

  /**
   * @param {() => void} step
   * @param {number} delay
   */
  schedule(step, delay) {
    this.cancelSchedule();
    this.scheduledStep = step;
    this.timer = this.context.ensureScheduler().setTimeout(() => {
      this.timer = undefined;
      this.scheduledStep = null;
      step();
    }, delay);
  }

  cancelSchedule() {
    if (this.timer !== undefined) {
      this.context.scheduler?.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.scheduledStep = null;
  }

  /** Runs the waiting step now: the network is back, no point in sitting out the back-off. */
  retryNow() {
    const step = this.scheduledStep;
    if (step && (this.status === Status.UNCONNECTED || this.failures > 0)) {
      this.cancelSchedule();
      step();
    }
  }

  installEnvironmentHooks() {
    if (this.removeEnvironmentHooks || typeof window === 'undefined' || typeof window.addEventListener !== 'function') {
      return;
    }
    const onOnline = () => this.retryNow();
    const onVisible = () => {
      if (typeof document !== 'undefined' && document.visibilityState === 'visible') {
        this.retryNow();
      }
    };
    window.addEventListener('online', onOnline);
    document.addEventListener('visibilitychange', onVisible);
    this.removeEnvironmentHooks = () => {
      window.removeEventListener('online', onOnline);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }
}
