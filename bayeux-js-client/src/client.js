// The Bayeux client: its public API, the session's state machine, and the path of every message in and out.
//
// States (the same names as the Java client):
//   disconnected  → handshake()                                   → handshaking
//   handshaking   → handshake reply ok, first connect reply ok    → connected
//   connected     → connect fails (network, HTTP, timeout)        → unconnected   (retry with back-off)
//   unconnected   → connect reply ok                              → connected
//   any           → advice reconnect:"handshake", or unconnected
//                   longer than the session can live              → rehandshaking (re-subscribes when it succeeds)
//   any           → disconnect()                                  → disconnecting → disconnected
//   any           → advice reconnect:"none"                       → disconnected

import { isMeta, isService, isValidChannel } from './channels.js';
import { CallbackContext, ChannelRegistry, callSafely } from './dispatcher.js';
import { ExtensionChain } from './extension-chain.js';
import { createScheduler } from './scheduler.js';
import { CallbackPollingTransport } from './transports/callback-polling.js';
import { LongPollingTransport } from './transports/long-polling.js';
import { TransportError } from './transports/transport.js';
import { WebSocketTransport } from './transports/websocket.js';

/** The states a client can be in; `getStatus()` returns one of these. */
export const Status = Object.freeze({
  DISCONNECTED: 'disconnected',
  HANDSHAKING: 'handshaking',
  CONNECTED: 'connected',
  UNCONNECTED: 'unconnected',
  REHANDSHAKING: 'rehandshaking',
  DISCONNECTING: 'disconnecting',
});

const DEFAULTS = Object.freeze({
  url: '',
  transports: ['websocket', 'long-polling', 'callback-polling'],
  maxNetworkDelay: 10000,
  backoffIncrement: 1000,
  maxBackoff: 60000,
  autoResubscribe: true,
  maxPendingMessages: 1000,
  maxURLLength: 2000,
  requestHeaders: {},
  useWorkerTimers: true,
  logLevel: 'warn',
  logger: undefined,
  onListenerException: undefined,
  WebSocket: undefined,
  webSocketURL: undefined,
  fetch: undefined,
  random: Math.random,
});

// Until the server advises otherwise: a held connect may last a minute.
const DEFAULT_ADVICE = Object.freeze({ reconnect: 'retry', interval: 0, timeout: 60000, maxInterval: 10000 });
const LOG_LEVELS = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

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

/** A subscription made by `subscribe()`; pass it to `unsubscribe()`. */
export class Subscription {
  /**
   * @param {BayeuxClient} client
   * @param {string} channel
   * @param {(message: object) => void} listener
   */
  constructor(client, channel, listener) {
    this.client = client;
    this.channel = channel;
    this.listener = listener;
    /** Resolves with the subscribe reply (check its `successful`). @type {Promise<object>} */
    this.ready = Promise.resolve({});
  }

  /**
   * Same as `client.unsubscribe(this, props, callback)`.
   *
   * @param {object} [props]
   * @param {(reply: object) => void} [callback]
   */
  unsubscribe(props, callback) {
    return this.client.unsubscribe(this, props, callback);
  }
}

/** A listener added by `addListener()`; pass it to `removeListener()`. */
export class ListenerHandle {
  /**
   * @param {string} channel
   * @param {(message: object) => void} listener
   */
  constructor(channel, listener) {
    this.channel = channel;
    this.listener = listener;
  }
}

/**
 * A request waiting for its reply.
 *
 * @typedef {object} PendingRequest
 * @property {'handshake'|'connect'|'disconnect'|'subscribe'|'unsubscribe'|'publish'|'call'} kind
 * @property {object} message
 * @property {(reply: object) => void} [done]
 * @property {Subscription} [subscription]
 * @property {boolean} [resubscribe] sent by the client itself after a re-handshake
 * @property {unknown} [timer]
 */

export class BayeuxClient {
  /** @param {string | object} [config] the endpoint URL, or a configuration (see `configure`) */
  constructor(config) {
    this.config = { ...DEFAULTS };
    this.status = Status.DISCONNECTED;
    /** @type {string | null} */
    this.clientId = null;
    this.advice = { ...DEFAULT_ADVICE };
    this.nextId = 0;
    this.batchDepth = 0;
    /** Messages waiting for a session or for a batch to end. @type {object[]} */
    this.outbox = [];
    /** @type {Map<string, PendingRequest>} */
    this.pending = new Map();
    this.subscriptions = new ChannelRegistry('subscription');
    this.listeners = new ChannelRegistry('listener');
    /** @type {Set<(status: string, previous: string) => void>} */
    this.statusListeners = new Set();
    this.report = (/** @type {unknown} */ error, /** @type {CallbackContext} */ context) =>
      this.reportListenerException(error, context);
    this.extensions = new ExtensionChain(this.report);
    /** @type {import('./transports/transport.js').Transport[]} */
    this.transports = [];
    /** @type {import('./transports/transport.js').Transport | null} */
    this.transport = null;
    /** Transports given up for this client's life: a WebSocket that never worked. @type {Set<string>} */
    this.failedTransports = new Set();
    /** @type {import('./scheduler.js').Scheduler | null} */
    this.scheduler = null;
    /** The one scheduled step of the state machine (next connect or handshake). */
    this.timer = undefined;
    /** @type {(() => void) | null} */
    this.scheduledStep = null;
    this.failures = 0;
    /** @type {string | null} */
    this.connectId = null;
    this.connectNoHold = true;
    this.connectedSinceHandshake = false;
    this.lastConnectedAt = 0;
    this.reestablish = false;
    /** @type {object | undefined} */
    this.handshakeProps = undefined;
    /** @type {((reply: object) => void) | null} */
    this.firstHandshakeReply = null;
    /** @type {(() => void) | null} */
    this.removeEnvironmentHooks = null;
    /** Channels whose re-subscription was lost on the way: sent again with the next connect. @type {Set<string>} */
    this.unconfirmed = new Set();
    /** Transports the server offered in its last handshake reply. @type {string[] | null} */
    this.offeredByServer = null;
    const client = this;
    /** @type {import('./transports/transport.js').TransportHost} */
    this.host = {
      url: () => client.config.url,
      receive: (batch) => client.receiveBatch(/** @type {object[]} */ (batch)),
      get scheduler() {
        return client.ensureScheduler();
      },
      get config() {
        return client.config;
      },
      log: (level, ...args) => client.log(level, ...args),
    };
    if (config !== undefined) {
      this.configure(config);
    }
  }

  // ---------------------------------------------------------------------------------------------- configuration

  /**
   * Sets options; see the guide or `ClientConfig` in the type declarations for each.
   *
   * @param {string | object} config the endpoint URL, or options to change
   * @returns {this}
   */
  configure(config) {
    const options = typeof config === 'string' ? { url: config } : { ...config };
    if (options === null || typeof options !== 'object') {
      throw new TypeError('configure() takes a URL or an options object');
    }
    for (const [key, value] of Object.entries(options)) {
      if (!(key in DEFAULTS)) {
        throw new TypeError(`Unknown option '${key}'`);
      }
      if (value !== undefined) {
        /** @type {Record<string, unknown>} */ (this.config)[key] = value;
      }
    }
    if (typeof this.config.url !== 'string') {
      throw new TypeError('The url option must be a string');
    }
    if (!Array.isArray(this.config.transports) || this.config.transports.length === 0) {
      throw new TypeError('The transports option must list at least one transport');
    }
    this.transports = this.buildTransports();
    return this;
  }

  /**
   * `configure(config)` then `handshake(props)`.
   *
   * @param {string | object} config
   * @param {object} [props]
   * @returns {Promise<object>}
   */
  init(config, props) {
    this.configure(config);
    return this.handshake(props);
  }

  buildTransports() {
    /** @type {Record<string, new (host: any) => import('./transports/transport.js').Transport>} */
    const known = {
      websocket: WebSocketTransport,
      'long-polling': LongPollingTransport,
      'callback-polling': CallbackPollingTransport,
    };
    return this.config.transports.map((name) => {
      const Type = known[name];
      if (!Type) {
        throw new TypeError(`Unknown transport '${name}'; known: ${Object.keys(known).join(', ')}`);
      }
      return new Type(this.host);
    });
  }

  ensureScheduler() {
    if (!this.scheduler) {
      this.scheduler = createScheduler(this.config.useWorkerTimers,
        (text, error) => this.log('info', text, error ?? ''));
    }
    return this.scheduler;
  }

  // -------------------------------------------------------------------------------------------------- accessors

  /** @returns {string} one of the `Status` values */
  getStatus() {
    return this.status;
  }

  /** @returns {boolean} */
  isDisconnected() {
    return this.status === Status.DISCONNECTED || this.status === Status.DISCONNECTING;
  }

  /** @returns {string | null} the session id, once handshaken */
  getClientId() {
    return this.clientId;
  }

  /** @returns {string | null} the transport in use, or null before the first handshake */
  getTransport() {
    return this.transport ? this.transport.name : null;
  }

  /** @returns {string} */
  getURL() {
    return this.config.url;
  }

  /** @returns {object} a copy of the last advice received, over the defaults */
  getAdvice() {
    return { ...this.advice };
  }

  /** @returns {object} a copy of the configuration */
  getConfiguration() {
    return { ...this.config };
  }

  /**
   * @param {(status: string, previous: string) => void} listener called on every change of `getStatus()`
   * @returns {() => void} removes the listener
   */
  addStatusListener(listener) {
    if (typeof listener !== 'function') {
      throw new TypeError('addStatusListener() takes a function');
    }
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  // -------------------------------------------------------------------------------------------------- handshake

  /**
   * Starts a session. The client then connects, and keeps reconnecting and re-handshaking as the server advises,
   * until `disconnect()` or advice `reconnect:"none"`.
   *
   * @param {object | ((reply: object) => void)} [props] fields to add to the handshake message (e.g. `ext`)
   * @param {(reply: object) => void} [callback] called with the first handshake reply
   * @returns {Promise<object>} resolves with the first handshake reply, successful or not
   */
  handshake(props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: object) => void} */ (props);
      props = undefined;
    }
    if (this.status !== Status.DISCONNECTED) {
      throw new Error(`handshake() needs a disconnected client; this one is ${this.status}`);
    }
    if (!this.config.url) {
      throw new Error('No URL configured: call configure({url}) first');
    }
    this.handshakeProps = props === undefined ? undefined : { ...props };
    this.failedTransports.clear();
    this.failures = 0;
    this.reestablish = false;
    this.advice = { ...DEFAULT_ADVICE };
    this.transport = null;
    this.ensureScheduler();
    this.installEnvironmentHooks();
    this.setStatus(Status.HANDSHAKING);
    return new Promise((resolve) => {
      this.firstHandshakeReply = (reply) => {
        this.firstHandshakeReply = null;
        callSafely(this.report, callback, new CallbackContext('callback', '/meta/handshake', reply), reply);
        resolve(reply);
      };
      this.sendHandshake();
    });
  }

  /** @returns {import('./transports/transport.js').Transport[]} available transports, in preference order */
  candidates() {
    return this.transports.filter((t) => !this.failedTransports.has(t.name) && t.isAvailable());
  }

  sendHandshake() {
    const candidates = this.candidates();
    if (candidates.length === 0) {
      this.terminate(this.localFailure({ channel: '/meta/handshake' }, 'no transport available'));
      return;
    }
    // A re-handshake stays on the transport that works; a first one starts with the preferred.
    if (!this.transport || !candidates.includes(this.transport)) {
      this.transport = candidates[0];
    }
    const message = {
      ...this.handshakeProps,
      id: this.newId(),
      channel: '/meta/handshake',
      version: '1.0',
      minimumVersion: '1.0',
      supportedConnectionTypes: candidates.map((t) => t.name),
      advice: { timeout: DEFAULT_ADVICE.timeout, interval: 0 },
    };
    this.pending.set(message.id, { kind: 'handshake', message });
    this.sendNow([message], false);
  }

  /**
   * @param {object} reply
   * @param {PendingRequest} request
   */
  onHandshakeReply(reply, request) { // eslint-disable-line no-unused-vars
    if (this.status !== Status.HANDSHAKING && this.status !== Status.REHANDSHAKING) {
      return;
    }
    if (!reply.successful) {
      this.onHandshakeFailure(reply);
      return;
    }
    const offered = Array.isArray(reply.supportedConnectionTypes) ? reply.supportedConnectionTypes : [];
    const chosen = this.candidates().find((t) => offered.includes(t.name));
    if (!chosen || typeof reply.clientId !== 'string') {
      const failure = {
        ...reply,
        successful: false,
        error: `301:${offered.join(',')}:connection_types_mismatch`,
        advice: { reconnect: 'none', interval: 0 },
      };
      this.notifyMeta(failure);
      this.completeFirstHandshake(failure);
      this.terminate(failure);
      return;
    }
    if (this.transport && this.transport !== chosen) {
      this.transport.abort();
    }
    this.transport = chosen;
    this.clientId = reply.clientId;
    this.lastConnectedAt = Date.now();
    this.connectedSinceHandshake = false;
    const reestablish = this.reestablish;
    this.reestablish = true;
    reply.reestablish = reestablish;
    this.notifyMeta(reply);
    this.completeFirstHandshake(reply);
    if (this.status !== Status.HANDSHAKING && this.status !== Status.REHANDSHAKING) {
      return; // a listener disconnected
    }
    this.connectNoHold = true;
    this.unconfirmed.clear();
    if (reestablish && this.config.autoResubscribe) {
      this.batchDepth++;
      this.resubscribe(this.subscriptions.channels());
      this.batchDepth--;
    }
    // Re-subscriptions and messages queued during the handshake go in the same envelope as the first connect, before
    // it: when its reply says "connected", they have all been processed.
    this.connect(this.batchDepth === 0);
  }

  /** @param {object} reply */
  onHandshakeFailure(reply) {
    this.notifyMeta(reply);
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

  /** @param {object} reply */
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
      this.request(message, { kind: 'subscribe', message, resubscribe: true });
    }
  }

  // ---------------------------------------------------------------------------------------------------- connect

  /** @param {boolean} [withQueued] whether messages waiting in the outbox go first, in the same envelope */
  connect(withQueued = false) {
    if (!this.clientId || !this.transport) {
      return;
    }
    const message = {
      id: this.newId(),
      channel: '/meta/connect',
      connectionType: this.transport.name,
      clientId: this.clientId,
    };
    // The first connect of a session, and one after a failure, must come back at once to tell the state.
    if (this.connectNoHold) {
      message.advice = { timeout: 0 };
    }
    this.connectId = message.id;
    this.pending.set(message.id, { kind: 'connect', message });
    if (this.unconfirmed.size > 0) {
      const channels = [...this.unconfirmed].filter((channel) => this.subscriptions.byChannel.has(channel));
      this.unconfirmed.clear();
      this.batchDepth++;
      this.resubscribe(channels);
      this.batchDepth--;
      withQueued = this.batchDepth === 0;
    }
    const queued = withQueued ? this.outbox.splice(0) : [];
    const wait = this.config.maxNetworkDelay + (this.connectNoHold ? 0 : this.advice.timeout);
    this.sendNow([...queued, message], true, wait);
  }

  /** @param {object} reply */
  onConnectReply(reply) {
    if (reply.id !== this.connectId) {
      return; // a superseded connect
    }
    this.connectId = null;
    if (this.status === Status.DISCONNECTING || this.status === Status.DISCONNECTED) {
      this.notifyMeta(reply);
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
    this.notifyMeta(reply);
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
    return backoffDelay(this.failures, this.config.backoffIncrement, this.config.maxBackoff, this.config.random);
  }

  // ------------------------------------------------------------------------------------------------- disconnect

  /**
   * Ends the session. Subscriptions are forgotten; listeners added with `addListener` stay.
   *
   * @param {object | ((reply: object) => void)} [props] fields to add to the disconnect message
   * @param {(reply: object) => void} [callback]
   * @returns {Promise<object>} resolves with the disconnect reply (or a local one when there was no session)
   */
  disconnect(props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: object) => void} */ (props);
      props = undefined;
    }
    return new Promise((resolve) => {
      const done = (/** @type {object} */ reply) => {
        callSafely(this.report, callback, new CallbackContext('callback', '/meta/disconnect', reply), reply);
        resolve(reply);
      };
      if (this.status === Status.DISCONNECTED) {
        done({ channel: '/meta/disconnect', successful: true });
        return;
      }
      if (this.status === Status.DISCONNECTING) {
        const existing = [...this.pending.values()].find((r) => r.kind === 'disconnect');
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
        this.notifyMeta(reply);
        done(reply);
        return;
      }
      this.setStatus(Status.DISCONNECTING);
      const message = { ...props, id: this.newId(), channel: '/meta/disconnect', clientId: this.clientId };
      this.pending.set(message.id, { kind: 'disconnect', message, done });
      this.sendNow([message], false);
    });
  }

  /** @param {object} reply */
  onDisconnectReply(reply) {
    const request = reply.id === undefined ? undefined : this.pending.get(String(reply.id));
    if (request && request.kind === 'disconnect') {
      this.pending.delete(String(reply.id));
      this.terminate(reply);
      this.notifyMeta(reply);
      request.done?.(reply);
      return;
    }
    if (this.status !== Status.DISCONNECTED) {
      // The server ended the session on its own.
      this.terminate(reply);
      this.notifyMeta(reply);
    }
  }

  /**
   * Ends everything: state, timers, transports, waiting requests.
   *
   * @param {object} reason the message that ended the session
   */
  terminate(reason) {
    this.cancelSchedule();
    this.clientId = null;
    this.connectId = null;
    this.batchDepth = 0;
    this.setStatus(Status.DISCONNECTED);
    for (const transport of this.transports) {
      transport.abort();
    }
    const outbox = this.outbox.splice(0);
    for (const message of outbox) {
      this.completeLocally(message, 'disconnected');
    }
    for (const [id, request] of [...this.pending]) {
      if (request.kind !== 'disconnect') {
        this.pending.delete(id);
        this.finish(request, this.localFailure(request.message, 'disconnected'));
      }
    }
    this.subscriptions.clear();
    this.unconfirmed.clear();
    this.removeEnvironmentHooks?.();
    this.removeEnvironmentHooks = null;
    if (this.firstHandshakeReply) {
      this.completeFirstHandshake(reason.channel === '/meta/handshake'
        ? reason : this.localFailure({ channel: '/meta/handshake' }, 'disconnected'));
    }
  }

  // ------------------------------------------------------------------------------------- subscribe and publish

  /**
   * Subscribes to a channel (wildcards allowed). The listener is active at once; if the server refuses, it is
   * removed and the reply says why.
   *
   * @param {string} channel
   * @param {(message: object) => void} listener called with each message delivered on a matching channel
   * @param {object | ((reply: object) => void)} [props] fields to add to the subscribe message
   * @param {(reply: object) => void} [callback] called with the subscribe reply
   * @returns {Subscription} its `ready` promise resolves with the reply
   */
  subscribe(channel, listener, props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: object) => void} */ (props);
      props = undefined;
    }
    if (!isValidChannel(channel, true) || isMeta(channel)) {
      throw new TypeError(`Cannot subscribe to '${channel}'`);
    }
    if (typeof listener !== 'function') {
      throw new TypeError('subscribe() needs a listener function');
    }
    const subscription = new Subscription(this, channel, listener);
    const message = { ...props, channel: '/meta/subscribe', subscription: channel };
    if (this.status === Status.DISCONNECTED || this.status === Status.DISCONNECTING) {
      subscription.ready = this.settleLocally(message, callback, 'disconnected');
      return subscription;
    }
    const first = this.subscriptions.add(subscription);
    if (!first) {
      // The server already has this channel for the session: nothing to send.
      subscription.ready = this.settleLocally(message, callback, null);
      return subscription;
    }
    subscription.ready = this.request(message, { kind: 'subscribe', message, subscription }, callback);
    return subscription;
  }

  /**
   * @param {Subscription} subscription
   * @param {object | ((reply: object) => void)} [props]
   * @param {(reply: object) => void} [callback]
   * @returns {Promise<object>} resolves with the unsubscribe reply
   */
  unsubscribe(subscription, props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: object) => void} */ (props);
      props = undefined;
    }
    if (!(subscription instanceof Subscription) || subscription.client !== this) {
      throw new TypeError('unsubscribe() takes a subscription returned by subscribe()');
    }
    const message = { ...props, channel: '/meta/unsubscribe', subscription: subscription.channel };
    const wasActive = this.subscriptions.has(subscription);
    const last = this.subscriptions.remove(subscription);
    if (!wasActive || !last || this.status === Status.DISCONNECTED || this.status === Status.DISCONNECTING) {
      return this.settleLocally(message, callback, null);
    }
    return this.request(message, { kind: 'unsubscribe', message }, callback);
  }

  /** Forgets every subscription locally, sending nothing (the server drops them with the session). */
  clearSubscriptions() {
    this.subscriptions.clear();
  }

  /**
   * Publishes data on a channel.
   *
   * @param {string} channel
   * @param {unknown} data
   * @param {object | ((reply: object) => void)} [props] fields to add to the message (e.g. `ext`)
   * @param {(reply: object) => void} [callback] called with the publish reply
   * @returns {Promise<object>} resolves with the publish reply; `successful` tells whether the server took it
   */
  publish(channel, data, props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: object) => void} */ (props);
      props = undefined;
    }
    if (!isValidChannel(channel, false) || isMeta(channel)) {
      throw new TypeError(`Cannot publish to '${channel}'`);
    }
    const message = { ...props, channel, data: data === undefined ? null : data };
    return this.request(message, { kind: 'publish', message }, callback);
  }

  /**
   * Publishes bytes; they travel as Z85 text and need the `binary` extension on both sending and receiving
   * clients (`new BinaryExtension()`).
   *
   * @param {string} channel
   * @param {ArrayBuffer | ArrayBufferView | number[]} bytes
   * @param {boolean} [last] whether this is the last chunk of the data
   * @param {object} [meta] anything the receiver should know about the data
   * @param {object} [props]
   * @param {(reply: object) => void} [callback]
   * @returns {Promise<object>}
   */
  publishBinary(channel, bytes, last = true, meta = undefined, props = undefined, callback = undefined) {
    const data = { data: bytes, last };
    if (meta !== undefined) {
      data.meta = meta;
    }
    const ext = { ...props?.ext, binary: {} };
    return this.publish(channel, data, { ...props, ext }, callback);
  }

  /**
   * Sends a request to a service channel and waits for the service's answer, which the server sends to this
   * client only.
   *
   * @param {string} target a `/service/...` channel, or a name relative to `/service/`
   * @param {unknown} data
   * @param {number | object | ((reply: object) => void)} [timeout] milliseconds to wait (default `maxNetworkDelay`)
   * @param {object | ((reply: object) => void)} [props]
   * @param {(reply: object) => void} [callback]
   * @returns {Promise<object>} resolves with the answer (`data`, `successful`), or a failed reply after the timeout
   */
  remoteCall(target, data, timeout, props, callback) {
    if (typeof timeout === 'function') {
      callback = /** @type {(reply: object) => void} */ (timeout);
      timeout = undefined;
      props = undefined;
    } else if (typeof timeout === 'object' && timeout !== null) {
      callback = /** @type {any} */ (props);
      props = timeout;
      timeout = undefined;
    }
    if (typeof props === 'function') {
      callback = /** @type {(reply: object) => void} */ (props);
      props = undefined;
    }
    const channel = serviceChannel(target);
    if (!isValidChannel(channel, false)) {
      throw new TypeError(`Cannot call '${target}'`);
    }
    const wait = typeof timeout === 'number' && timeout > 0 ? timeout : this.config.maxNetworkDelay;
    const message = { ...props, channel, data: data === undefined ? null : data };
    /** @type {PendingRequest} */
    const request = { kind: 'call', message };
    const promise = this.request(message, request, callback);
    if (this.pending.get(message.id) === request) {
      request.timer = this.ensureScheduler().setTimeout(() => {
        if (this.pending.get(message.id) === request) {
          this.pending.delete(message.id);
          this.finish(request, { ...this.localFailure(message, `no answer within ${wait} ms`), error: '406::timeout' });
        }
      }, wait);
    }
    return promise;
  }

  // -------------------------------------------------------------------------------------------------- batching

  /** Holds messages until the matching `endBatch()`, then sends them together. */
  startBatch() {
    this.batchDepth++;
  }

  /** Ends a batch started by `startBatch()`; the outermost one sends the messages. */
  endBatch() {
    if (this.batchDepth === 0) {
      throw new Error('endBatch() without startBatch()');
    }
    this.batchDepth--;
    if (this.batchDepth === 0) {
      this.flushOutbox();
    }
  }

  /**
   * Runs `fn` in a batch: the messages it sends leave together, in one request or frame.
   *
   * @template T
   * @param {() => T} fn
   * @returns {T}
   */
  batch(fn) {
    this.startBatch();
    try {
      return fn();
    } finally {
      this.endBatch();
    }
  }

  // ------------------------------------------------------------------------------------------------- listeners

  /**
   * Listens to a channel without subscribing: for `/meta/*` channels (the client's own protocol events, plus
   * `/meta/unsuccessful` for every failure), and for messages the server sends to this client directly.
   *
   * @param {string} channel a channel name or pattern
   * @param {(message: object) => void} listener
   * @returns {ListenerHandle}
   */
  addListener(channel, listener) {
    if (!isValidChannel(channel, true)) {
      throw new TypeError(`Cannot listen to '${channel}'`);
    }
    if (typeof listener !== 'function') {
      throw new TypeError('addListener() needs a listener function');
    }
    const handle = new ListenerHandle(channel, listener);
    this.listeners.add(handle);
    return handle;
  }

  /** @param {ListenerHandle} handle @returns {boolean} whether it was there */
  removeListener(handle) {
    const present = this.listeners.has(handle);
    this.listeners.remove(handle);
    return present;
  }

  clearListeners() {
    this.listeners.clear();
  }

  // ------------------------------------------------------------------------------------------------ extensions

  /**
   * @param {string} name
   * @param {import('./extension-chain.js').Extension} extension
   * @returns {boolean} false if an extension of that name is already registered
   */
  registerExtension(name, extension) {
    if (typeof name !== 'string' || !extension || typeof extension !== 'object') {
      throw new TypeError('registerExtension() takes a name and an extension object');
    }
    if (!this.extensions.add(name, extension)) {
      this.log('warn', `An extension named '${name}' is already registered`);
      return false;
    }
    callSafely(this.report, extension.registered?.bind(extension), new CallbackContext('extension', name), name, this);
    return true;
  }

  /** @param {string} name @returns {boolean} whether it was registered */
  unregisterExtension(name) {
    const extension = this.extensions.remove(name);
    if (!extension) {
      return false;
    }
    callSafely(this.report, extension.unregistered?.bind(extension), new CallbackContext('extension', name));
    return true;
  }

  /** @param {string} name @returns {object | undefined} */
  getExtension(name) {
    return this.extensions.get(name);
  }

  // ----------------------------------------------------------------------------------------- messages outgoing

  newId() {
    return String(++this.nextId);
  }

  /**
   * Registers a request and queues or sends its message.
   *
   * @param {object} message
   * @param {PendingRequest} request
   * @param {(reply: object) => void} [callback]
   * @returns {Promise<object>}
   */
  request(message, request, callback) {
    message.id = this.newId();
    return new Promise((resolve) => {
      request.done = (reply) => {
        callSafely(this.report, callback, new CallbackContext('callback', message.channel, reply), reply);
        resolve(reply);
      };
      if (this.status === Status.DISCONNECTED || this.status === Status.DISCONNECTING) {
        this.finish(request, this.localFailure(message, 'disconnected'));
        return;
      }
      if (this.outbox.length >= this.config.maxPendingMessages) {
        this.finish(request, this.localFailure(message, `more than ${this.config.maxPendingMessages} messages waiting`));
        return;
      }
      this.pending.set(message.id, request);
      this.outbox.push(message);
      this.flushOutbox();
    });
  }

  flushOutbox() {
    if (this.batchDepth > 0 || !this.clientId || this.outbox.length === 0) {
      return;
    }
    this.sendNow(this.outbox.splice(0), false);
  }

  /**
   * Passes messages through the outgoing extensions and hands them to the transport.
   *
   * @param {object[]} messages
   * @param {boolean} connect whether the envelope holds the /meta/connect (which may be held by the server)
   * @param {number} [timeout] how long the answers may take; `maxNetworkDelay` by default
   */
  sendNow(messages, connect, timeout = this.config.maxNetworkDelay) {
    const processed = [];
    for (const message of messages) {
      if (message.channel !== '/meta/handshake') {
        message.clientId = this.clientId;
      }
      const out = this.extensions.outgoing(message);
      if (out) {
        processed.push(out);
      } else {
        this.completeLocally(message, 'deleted by an extension', '404::message_deleted');
      }
    }
    if (processed.length === 0) {
      return;
    }
    if (processed.length === 1 && processed[0].channel === '/meta/handshake') {
      const replayed = this.extensions.replayHandshake(processed[0]);
      if (replayed) {
        // Answered locally (a page reload resuming its session); processed like any reply, but not reentrantly.
        const reply = { ...replayed, id: processed[0].id };
        Promise.resolve().then(() => this.receiveBatch([reply]));
        return;
      }
    }
    this.transmit(/** @type {import('./transports/transport.js').Transport} */ (this.transport), processed, connect, timeout);
  }

  /**
   * @param {import('./transports/transport.js').Transport} transport
   * @param {object[]} messages processed by the extensions already
   * @param {boolean} connect
   * @param {number} timeout
   */
  transmit(transport, messages, connect, timeout) {
    this.log('debug', 'send', transport.name, messages);
    transport.send({ messages, timeout, connect }).catch((error) => this.onSendFailure(transport, messages, error));
  }

  /**
   * @param {import('./transports/transport.js').Transport} transport
   * @param {object[]} messages
   * @param {unknown} error
   */
  onSendFailure(transport, messages, error) {
    const failure = error instanceof TransportError ? error : new TransportError('send failed', { cause: error });
    this.log('debug', `${transport.name} failed: ${failure.reason}`);
    const unanswered = messages.filter((m) => this.pending.has(m.id));
    if (unanswered.length === 0 || this.status === Status.DISCONNECTED) {
      return;
    }
    if (transport !== this.transport && this.failedTransports.has(transport.name) && this.transport) {
      // Sent before the fall-back and failed with the rest: they still have their chance on the new transport.
      this.resend(this.transport, unanswered);
      return;
    }
    const next = this.fallbackFrom(transport);
    if (next) {
      this.log('info', `${transport.name} does not work here (${failure.reason}); using ${next.name}`);
      this.transport = next;
      transport.abort();
      this.resend(next, unanswered);
      return;
    }
    for (const message of unanswered) {
      this.receiveReply(this.localFailure(message, failure.reason, undefined, failure));
    }
  }

  /**
   * @param {import('./transports/transport.js').Transport} transport
   * @param {object[]} messages sent before, still without a reply
   */
  resend(transport, messages) {
    const others = [];
    for (const message of messages) {
      if (message.channel === '/meta/handshake') {
        // Sent again from scratch: its fields name the transports.
        this.pending.delete(message.id);
        this.sendHandshake();
      } else if (message.channel === '/meta/connect') {
        this.pending.delete(message.id);
        if (message.id === this.connectId) {
          this.connect();
        }
      } else {
        others.push(message);
      }
    }
    if (others.length > 0) {
      this.transmit(transport, others, false, this.config.maxNetworkDelay);
    }
  }

  /**
   * A WebSocket that never carried a single message (blocked by a proxy or a firewall) is given up for good, as
   * long as another transport is left; one that worked before and fails now is just a network failure.
   *
   * @param {import('./transports/transport.js').Transport} transport
   * @returns {import('./transports/transport.js').Transport | null}
   */
  fallbackFrom(transport) {
    if (transport.name !== 'websocket' || transport.proven || transport !== this.transport) {
      return null;
    }
    this.failedTransports.add(transport.name);
    const candidates = this.candidates();
    const offered = this.clientId ? this.offeredByServer : null;
    const next = candidates.find((t) => !offered || offered.includes(t.name)) ?? null;
    if (!next) {
      this.failedTransports.delete(transport.name);
    }
    return next;
  }

  // ----------------------------------------------------------------------------------------- messages incoming

  /** @param {object[]} batch */
  receiveBatch(batch) {
    for (const message of batch) {
      try {
        this.receive(message);
      } catch (error) {
        this.log('error', 'Failed to process a message', message, error);
      }
    }
  }

  /**
   * Processes one message from the server (or made locally), after the incoming extensions. Public so that a
   * custom transport or an extension can feed messages in.
   *
   * @param {object} raw
   */
  receive(raw) {
    if (!raw || typeof raw !== 'object' || typeof raw.channel !== 'string') {
      this.log('warn', 'Ignoring a message without a channel', raw);
      return;
    }
    const message = this.extensions.incoming(raw);
    if (!message) {
      return;
    }
    this.log('debug', 'received', message);
    if (message.advice && typeof message.advice === 'object'
        && (message.channel === '/meta/handshake' || message.channel === '/meta/connect')) {
      this.updateAdvice(message.advice);
    }
    if (message.channel === '/meta/handshake' && message.successful) {
      this.offeredByServer = Array.isArray(message.supportedConnectionTypes) ? message.supportedConnectionTypes : [];
    }
    if ('successful' in message && (message.data === undefined || isMeta(message.channel))) {
      this.receiveReply(message);
      return;
    }
    const request = message.id === undefined ? undefined : this.pending.get(String(message.id));
    if (request && request.kind === 'call') {
      this.pending.delete(String(message.id));
      this.finish(request, { successful: true, ...message });
      return;
    }
    if (isMeta(message.channel)) {
      this.notifyMeta(message);
      return;
    }
    this.deliver(message);
  }

  /** @param {object} advice */
  updateAdvice(advice) {
    const next = { ...this.advice, ...advice };
    for (const key of ['interval', 'timeout', 'maxInterval']) {
      next[key] = numberOr(advice[key], this.advice[key]);
    }
    if (advice['multiple-clients'] && !this.advice['multiple-clients']) {
      this.log('info', 'Another tab of this browser holds a long poll: polling every', next.interval, 'ms');
    }
    this.advice = next;
  }

  /**
   * A reply (from the server, or made locally for a failure) to a request of this client.
   *
   * @param {object} reply
   */
  receiveReply(reply) {
    const id = reply.id === undefined ? undefined : String(reply.id);
    if (reply.channel === '/meta/disconnect') {
      this.onDisconnectReply(reply);
      return;
    }
    const request = id === undefined ? undefined : this.pending.get(id);
    if (!request) {
      if (isMeta(reply.channel)) {
        this.notifyMeta(reply);
      }
      return;
    }
    if (request.kind === 'call' && reply.successful) {
      return; // the publish reply of a remote call; the call waits for the service's answer
    }
    this.pending.delete(id);
    switch (request.kind) {
      case 'handshake':
        this.onHandshakeReply(reply, request);
        break;
      case 'connect':
        this.onConnectReply(reply);
        break;
      case 'subscribe':
        if (!reply.successful && request.subscription) {
          this.subscriptions.remove(request.subscription);
        } else if (!reply.successful && request.resubscribe) {
          const channel = request.message.subscription;
          if (reply.failure) {
            // Lost with its connection, not refused: the session still needs it.
            this.unconfirmed.add(channel);
          } else {
            this.subscriptions.byChannel.delete(channel);
          }
        }
        this.notifyMeta(reply);
        this.finish(request, reply);
        break;
      case 'unsubscribe':
        this.notifyMeta(reply);
        this.finish(request, reply);
        break;
      default:
        this.notifyPublish(reply);
        this.finish(request, reply);
    }
  }

  /**
   * @param {PendingRequest} request
   * @param {object} reply
   */
  finish(request, reply) {
    if (request.timer !== undefined) {
      this.scheduler?.clearTimeout(request.timer);
    }
    request.done?.(reply);
  }

  /** @param {object} reply */
  notifyMeta(reply) {
    this.listeners.dispatch(reply, this.report);
    if (reply.successful === false) {
      this.listeners.dispatch({ ...reply, channel: '/meta/unsuccessful', originalChannel: reply.channel }, this.report);
    }
  }

  /** @param {object} reply */
  notifyPublish(reply) {
    this.listeners.dispatch({ ...reply, channel: '/meta/publish', originalChannel: reply.channel }, this.report);
    if (reply.successful === false) {
      this.listeners.dispatch({ ...reply, channel: '/meta/unsuccessful', originalChannel: reply.channel }, this.report);
    }
  }

  /** @param {object} message */
  deliver(message) {
    this.subscriptions.dispatch(message, this.report);
    this.listeners.dispatch(message, this.report);
  }

  // ---------------------------------------------------------------------------------------------------- helpers

  /**
   * A failed reply made by the client itself.
   *
   * @param {object} message the request
   * @param {string} reason
   * @param {string} [error] the Bayeux error string; the reason by default
   * @param {TransportError} [exception]
   * @returns {object}
   */
  localFailure(message, reason, error, exception) {
    const reply = {
      channel: message.channel,
      successful: false,
      error: error ?? reason,
      failure: {
        reason,
        transport: this.transport?.name ?? null,
        ...(exception?.httpCode !== undefined ? { httpCode: exception.httpCode } : {}),
        ...(exception ? { exception } : {}),
      },
    };
    if (message.id !== undefined) {
      reply.id = message.id;
    }
    if (message.subscription !== undefined) {
      reply.subscription = message.subscription;
    }
    return reply;
  }

  /**
   * Completes a request that will never reach the server.
   *
   * @param {object} message
   * @param {string} reason
   * @param {string} [error]
   */
  completeLocally(message, reason, error) {
    const request = this.pending.get(message.id);
    if (request) {
      this.pending.delete(message.id);
      this.finish(request, this.localFailure(message, reason, error));
    }
  }

  /**
   * A reply made locally, delivered asynchronously like a real one.
   *
   * @param {object} message
   * @param {((reply: object) => void) | undefined} callback
   * @param {string | null} failure the reason, or null for success
   * @returns {Promise<object>}
   */
  settleLocally(message, callback, failure) {
    const reply = failure ? this.localFailure(message, failure) : { ...message, successful: true };
    return Promise.resolve().then(() => {
      callSafely(this.report, callback, new CallbackContext('callback', message.channel, reply), reply);
      return reply;
    });
  }

  /** @param {string} status */
  setStatus(status) {
    const previous = this.status;
    if (previous === status) {
      return;
    }
    this.status = status;
    this.log('debug', `status ${previous} -> ${status}`);
    for (const listener of [...this.statusListeners]) {
      callSafely(this.report, listener, new CallbackContext('status'), status, previous);
    }
  }

  /**
   * @param {() => void} step
   * @param {number} delay
   */
  schedule(step, delay) {
    this.cancelSchedule();
    this.scheduledStep = step;
    this.timer = this.ensureScheduler().setTimeout(() => {
      this.timer = undefined;
      this.scheduledStep = null;
      step();
    }, delay);
  }

  cancelSchedule() {
    if (this.timer !== undefined) {
      this.scheduler?.clearTimeout(this.timer);
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

  /**
   * @param {unknown} error
   * @param {CallbackContext} context
   */
  reportListenerException(error, context) {
    const handler = this.config.onListenerException;
    if (typeof handler === 'function') {
      try {
        handler.call(this, error, context);
        return;
      } catch (secondary) {
        this.log('error', 'onListenerException threw', secondary);
      }
    }
    this.log('warn', `A ${context.kind} callback${context.channel ? ` for ${context.channel}` : ''} threw`, error);
  }

  /**
   * @param {string} level
   * @param {...unknown} args
   */
  log(level, ...args) {
    const threshold = LOG_LEVELS[/** @type {keyof LOG_LEVELS} */ (this.config.logLevel)] ?? LOG_LEVELS.warn;
    if ((LOG_LEVELS[/** @type {keyof LOG_LEVELS} */ (level)] ?? LOG_LEVELS.info) < threshold) {
      return;
    }
    const logger = this.config.logger ?? globalThis.console;
    const method = logger?.[level] ?? logger?.log;
    if (typeof method === 'function') {
      method.call(logger, '[bayeux]', ...args);
    }
  }
}

/**
 * @param {unknown} value
 * @param {number} fallback
 * @returns {number}
 */
function numberOr(value, fallback) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** @param {string} target @returns {string} */
function serviceChannel(target) {
  if (typeof target !== 'string' || target.length === 0) {
    return '';
  }
  if (isService(target)) {
    return target;
  }
  return target.startsWith('/') ? `/service${target}` : `/service/${target}`;
}

