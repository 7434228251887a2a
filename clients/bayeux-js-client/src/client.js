// The public API of the client, a facade over three parts it makes and holds: the context (context.js: the
// configuration, timers, log), the session (session.js: the state machine: handshake, connect, back-off, disconnect)
// and the message path the session owns (message-path.js: messages out and in).

import { isMeta, isService, isValidChannel } from './channels.js';
import { DEFAULTS, Status } from './defaults.js';
import { RecoveryExtension } from './extensions/recovery.js';
import { ClientContext } from './context.js';
import { CallbackContext, callSafely } from './dispatcher.js';
import { Session } from './session.js';
import { CallbackPollingTransport } from './transports/callback-polling.js';
import { LongPollingTransport } from './transports/long-polling.js';
import { WebSocketTransport } from './transports/websocket.js';

/** @typedef {import('./defaults.js').Message} Message */

export { Status } from './defaults.js';
export { backoffDelay } from './session.js';

/** A subscription made by `subscribe()`; pass it to `unsubscribe()`. */
export class Subscription {
  /**
   * @param {BayeuxClient} client
   * @param {string} channel
   * @param {(message: Message) => void} listener
   */
  constructor(client, channel, listener) {
    this.client = client;
    this.channel = channel;
    this.listener = listener;
    /** Resolves with the subscribe reply (check its `successful`). @type {Promise<Message>} */
    this.ready = Promise.resolve(/** @type {Message} */ ({}));
  }

  /**
   * Same as `client.unsubscribe(this, props, callback)`.
   *
   * @param {Record<string, any>} [props]
   * @param {(reply: Message) => void} [callback]
   */
  unsubscribe(props, callback) {
    return this.client.unsubscribe(this, props, callback);
  }
}

/** A listener added by `addListener()`; pass it to `removeListener()`. */
export class ListenerHandle {
  /**
   * @param {string} channel
   * @param {(message: Message) => void} listener
   */
  constructor(channel, listener) {
    this.channel = channel;
    this.listener = listener;
  }
}

/**
 * What the recovery extension needs of the client to recover a gap in a channel's offsets: a subscribe of its own
 * (no listener added), held messages let through after the message being handled, and timers.
 *
 * @param {import('./message-path.js').MessagePath} path
 * @param {import('./context.js').ClientContext} context
 * @returns {import('./extensions/recovery.js').RecoveryHost}
 */
function recoveryHost(path, context) {
  return {
    subscribe(channel, onFailure) {
      const message = { channel: '/meta/subscribe', subscription: channel };
      // A reply from the server passes the extensions; a failure the client makes itself does not, so it is handed
      // back through the callback.
      path.request(message, { kind: 'subscribe', message }, (reply) => {
        if (reply.failure) {
          onFailure(reply);
        }
      });
    },
    release: (messages) => path.release(messages),
    setTimeout: (callback, delay) => context.ensureScheduler().setTimeout(callback, delay),
    clearTimeout: (handle) => context.scheduler?.clearTimeout(handle),
    // Twice the longest wait for a reply: the subscribe's reply (or the client's failure) comes within one, the
    // missed messages right after it.
    timeout: () => 2 * context.config.maxNetworkDelay,
    log: (level, ...args) => context.log(level, ...args),
  };
}

/**
 * Registers the recovery extension (as "recovery") when the `recovery` option is on, and removes it when off.
 *
 * @param {import('./message-path.js').MessagePath} path
 * @param {import('./context.js').ClientContext} context
 * @param {boolean} on
 */
function syncRecovery(path, context, on) {
  const extensions = path.extensions;
  const ours = extensions.get('recovery');
  const maxChannels = context.config.recoveryMaxChannels;
  if (on && !ours) {
    extensions.add('recovery', new RecoveryExtension(recoveryHost(path, context), { maxChannels }));
  } else if (on && ours instanceof RecoveryExtension) {
    /** @type {any} */ (ours).maxChannels = maxChannels;
  } else if (!on && ours instanceof RecoveryExtension) {
    extensions.remove('recovery');
  }
}

/**
 * A Bayeux client: `handshake()`, then `subscribe()`, `publish()`, `remoteCall()`; it stays connected (reconnecting,
 * re-handshaking and re-subscribing as the network and the server require) until `disconnect()`.
 */
export class BayeuxClient {
  /** @param {string | object} [config] the endpoint URL, or a configuration (see `configure`) */
  constructor(config) {
    /**
     * The configuration, timers and log shared by the parts.
     *
     * @private
     */
    this.context = new ClientContext(this);
    /**
     * The state machine.
     *
     * @private
     */
    this.session = new Session(this.context);
    /**
     * Messages out and in: requests, replies, subscriptions, listeners, extensions, transports.
     *
     * @private
     */
    this.path = this.session.path;
    if (config !== undefined) {
      this.configure(config);
    }
    syncRecovery(this.path, this.context, this.context.config.recovery);
  }

  // --------------------------------------------------------------------------------------------- configuration

  /**
   * Sets options; see the guide or `ClientConfig` in the type declarations for each.
   *
   * @param {string | object} config the endpoint URL, or options to change
   * @returns {this}
   */
  configure(config) {
    if (this.session.status !== Status.DISCONNECTED) {
      throw new Error(`configure() needs a disconnected client; this one is ${this.session.status}`);
    }
    const options = typeof config === 'string' ? { url: config } : { ...config };
    if (config === null || typeof options !== 'object') {
      throw new TypeError('configure() takes a URL or an options object');
    }
    for (const [key, value] of Object.entries(options)) {
      if (!(key in DEFAULTS)) {
        throw new TypeError(`Unknown option '${key}'`);
      }
      if (value !== undefined) {
        /** @type {Record<string, unknown>} */ (this.context.config)[key] = value;
      }
    }
    if (typeof this.context.config.url !== 'string') {
      throw new TypeError('The url option must be a string');
    }
    const maxChannels = this.context.config.recoveryMaxChannels;
    if (!Number.isInteger(maxChannels) || maxChannels < 1) {
      throw new TypeError(`The recoveryMaxChannels option must be an integer of at least 1, not ${maxChannels}`);
    }
    if (!Array.isArray(this.context.config.transports) || this.context.config.transports.length === 0) {
      throw new TypeError('The transports option must list at least one transport');
    }
    this.path.transports = buildTransports(this.context.config.transports, this.path.host);
    syncRecovery(this.path, this.context, this.context.config.recovery);
    return this;
  }

  /**
   * `configure(config)` then `handshake(props)`.
   *
   * @param {string | object} config
   * @param {Record<string, any>} [props]
   * @returns {Promise<Message>}
   */
  init(config, props) {
    this.configure(config);
    return this.handshake(props);
  }

  // ------------------------------------------------------------------------------------------------- accessors

  /** @returns {string} one of the `Status` values */
  getStatus() {
    return this.session.status;
  }

  /** @returns {boolean} */
  isDisconnected() {
    return this.session.status === Status.DISCONNECTED || this.session.status === Status.DISCONNECTING;
  }

  /** @returns {string | null} the session id, once handshaken */
  getClientId() {
    return this.session.clientId;
  }

  /** @returns {string | null} the transport in use, or null before the first handshake */
  getTransport() {
    return this.path.transport ? this.path.transport.name : null;
  }

  /** @returns {string} */
  getURL() {
    return this.context.config.url;
  }

  /** @returns {import('./defaults.js').Advice} a copy of the last advice received, over the defaults */
  getAdvice() {
    return { ...this.session.advice };
  }

  /** @returns {import('./defaults.js').Config} a copy of the configuration */
  getConfiguration() {
    return { ...this.context.config };
  }

  /**
   * @param {(status: string, previous: string) => void} listener called on every change of `getStatus()`
   * @returns {() => void} removes the listener
   */
  addStatusListener(listener) {
    if (typeof listener !== 'function') {
      throw new TypeError('addStatusListener() takes a function');
    }
    this.session.statusListeners.add(listener);
    return () => this.session.statusListeners.delete(listener);
  }

  // ------------------------------------------------------------------------------------ session (session.js)

  /**
   * Starts a session. The client then connects, and keeps reconnecting and re-handshaking as the server advises,
   * until `disconnect()` or advice `reconnect:"none"`.
   *
   * @param {Record<string, any> | ((reply: Message) => void)} [props] fields to add to the handshake message
   *   (e.g. `ext`)
   * @param {(reply: Message) => void} [callback] called with the first handshake reply
   * @returns {Promise<Message>} resolves with the first handshake reply, successful or not
   */
  handshake(props, callback) {
    return this.session.handshake(props, callback);
  }

  /**
   * Ends the session. Subscriptions are forgotten; listeners added with `addListener` stay.
   *
   * @param {Record<string, any> | ((reply: Message) => void)} [props] fields to add to the disconnect message
   * @param {(reply: Message) => void} [callback]
   * @returns {Promise<Message>} resolves with the disconnect reply (or a local one when there was no session)
   */
  disconnect(props, callback) {
    return this.session.disconnect(props, callback);
  }

  // ------------------------------------------------------------------------------------- subscribe and publish

  /**
   * Subscribes to a channel (wildcards allowed). The listener is active at once; if the server refuses, it is
   * removed and the reply says why.
   *
   * @param {string} channel
   * @param {(message: Message) => void} listener called with each message delivered on a matching channel
   * @param {Record<string, any> | ((reply: Message) => void)} [props] fields to add to the subscribe message
   * @param {(reply: Message) => void} [callback] called with the subscribe reply
   * @returns {Subscription} its `ready` promise resolves with the reply
   */
  subscribe(channel, listener, props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: Message) => void} */ (props);
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
    if (this.session.status === Status.DISCONNECTED || this.session.status === Status.DISCONNECTING) {
      subscription.ready = this.path.settleLocally(message, callback, 'disconnected');
      return subscription;
    }
    const first = this.path.subscriptions.add(subscription);
    if (!first) {
      // The server already has this channel for the session: nothing to send.
      subscription.ready = this.path.settleLocally(message, callback, null);
      return subscription;
    }
    subscription.ready = this.path.request(message, { kind: 'subscribe', message, subscription }, callback);
    return subscription;
  }

  /**
   * @param {Subscription} subscription
   * @param {Record<string, any> | ((reply: Message) => void)} [props]
   * @param {(reply: Message) => void} [callback]
   * @returns {Promise<Message>} resolves with the unsubscribe reply
   */
  unsubscribe(subscription, props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: Message) => void} */ (props);
      props = undefined;
    }
    if (!(subscription instanceof Subscription) || subscription.client !== this) {
      throw new TypeError('unsubscribe() takes a subscription returned by subscribe()');
    }
    const message = { ...props, channel: '/meta/unsubscribe', subscription: subscription.channel };
    const wasActive = this.path.subscriptions.has(subscription);
    const last = this.path.subscriptions.remove(subscription);
    if (!wasActive || !last || this.session.status === Status.DISCONNECTED
        || this.session.status === Status.DISCONNECTING) {
      return this.path.settleLocally(message, callback, null);
    }
    return this.path.request(message, { kind: 'unsubscribe', message }, callback);
  }

  /** Forgets every subscription locally, sending nothing (the server drops them with the session). */
  clearSubscriptions() {
    this.path.subscriptions.clear();
  }

  /**
   * Publishes data on a channel.
   *
   * @param {string} channel
   * @param {unknown} data
   * @param {Record<string, any> | ((reply: Message) => void)} [props] fields to add to the message (e.g. `ext`)
   * @param {(reply: Message) => void} [callback] called with the publish reply
   * @returns {Promise<Message>} resolves with the publish reply; `successful` tells whether the server took it
   */
  publish(channel, data, props, callback) {
    if (typeof props === 'function') {
      callback = /** @type {(reply: Message) => void} */ (props);
      props = undefined;
    }
    if (!isValidChannel(channel, false) || isMeta(channel)) {
      throw new TypeError(`Cannot publish to '${channel}'`);
    }
    const message = { ...props, channel, data: data === undefined ? null : data };
    return this.path.request(message, { kind: 'publish', message }, callback);
  }

  /**
   * Publishes bytes; they travel as Z85 text and need the `binary` extension on both sending and receiving
   * clients (`new BinaryExtension()`).
   *
   * @param {string} channel
   * @param {ArrayBuffer | ArrayBufferView | number[]} bytes
   * @param {boolean} [last] whether this is the last chunk of the data
   * @param {object} [meta] anything the receiver should know about the data
   * @param {Record<string, any>} [props]
   * @param {(reply: Message) => void} [callback]
   * @returns {Promise<Message>}
   */
  publishBinary(channel, bytes, last = true, meta = undefined, props = undefined, callback = undefined) {
    /** @type {Record<string, unknown>} */
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
   * @param {number | Record<string, any> | ((reply: Message) => void)} [timeout] milliseconds to wait
   *   (default `maxNetworkDelay`)
   * @param {Record<string, any> | ((reply: Message) => void)} [props]
   * @param {(reply: Message) => void} [callback]
   * @returns {Promise<Message>} resolves with the answer (`data`, `successful`), or a failed reply after the timeout
   */
  remoteCall(target, data, timeout, props, callback) {
    if (typeof timeout === 'function') {
      callback = /** @type {(reply: Message) => void} */ (timeout);
      timeout = undefined;
      props = undefined;
    } else if (typeof timeout === 'object' && timeout !== null) {
      callback = /** @type {any} */ (props);
      props = timeout;
      timeout = undefined;
    }
    if (typeof props === 'function') {
      callback = /** @type {(reply: Message) => void} */ (props);
      props = undefined;
    }
    const channel = serviceChannel(target);
    if (!isValidChannel(channel, false)) {
      throw new TypeError(`Cannot call '${target}'`);
    }
    const wait = typeof timeout === 'number' && timeout > 0 ? timeout : this.context.config.maxNetworkDelay;
    /** @type {Message} */
    const message = { ...props, channel, data: data === undefined ? null : data };
    const path = this.path;
    /** @type {import('./message-path.js').PendingRequest} */
    const request = { kind: 'call', message };
    const promise = path.request(message, request, callback);
    if (path.pending.get(message.id) === request) {
      request.timer = this.context.ensureScheduler().setTimeout(() => {
        if (path.pending.get(message.id) === request) {
          path.pending.delete(message.id);
          path.finish(request, { ...path.localFailure(message, `no answer within ${wait} ms`), error: '406::timeout' });
        }
      }, wait);
    }
    return promise;
  }

  // -------------------------------------------------------------------------------------------------- batching

  /** Holds messages until the matching `endBatch()`, then sends them together. */
  startBatch() {
    this.path.batchDepth++;
  }

  /** Ends a batch started by `startBatch()`; the outermost one sends the messages. */
  endBatch() {
    if (this.path.batchDepth === 0) {
      throw new Error('endBatch() without startBatch()');
    }
    this.path.batchDepth--;
    if (this.path.batchDepth === 0) {
      this.path.flushOutbox();
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
   * @param {(message: Message) => void} listener
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
    this.path.listeners.add(handle);
    return handle;
  }

  /** @param {ListenerHandle} handle @returns {boolean} whether it was there */
  removeListener(handle) {
    const present = this.path.listeners.has(handle);
    this.path.listeners.remove(handle);
    return present;
  }

  clearListeners() {
    this.path.listeners.clear();
  }

  /**
   * Processes one message from the server (or made locally), after the incoming extensions: for a custom transport
   * or an extension that feeds messages in.
   *
   * @param {Message} message
   */
  receive(message) {
    this.path.receive(message);
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
    if (!this.path.extensions.add(name, extension)) {
      this.context.log('warn', `An extension named '${name}' is already registered`);
      return false;
    }
    callSafely(this.context.report, extension.registered?.bind(extension), new CallbackContext('extension', name), name, this);
    return true;
  }

  /** @param {string} name @returns {boolean} whether it was registered */
  unregisterExtension(name) {
    const extension = this.path.extensions.remove(name);
    if (!extension) {
      return false;
    }
    callSafely(this.context.report, extension.unregistered?.bind(extension), new CallbackContext('extension', name));
    return true;
  }

  /** @param {string} name @returns {object | undefined} */
  getExtension(name) {
    return this.path.extensions.get(name);
  }
}

/**
 * @param {string[]} names the `transports` option
 * @param {import('./transports/transport.js').TransportHost} host
 * @returns {import('./transports/transport.js').Transport[]}
 */
function buildTransports(names, host) {
  /** @type {Record<string, new (host: any) => import('./transports/transport.js').Transport>} */
  const known = {
    websocket: WebSocketTransport,
    'long-polling': LongPollingTransport,
    'callback-polling': CallbackPollingTransport,
  };
  return names.map((name) => {
    const Type = known[name];
    if (!Type) {
      throw new TypeError(`Unknown transport '${name}'; known: ${Object.keys(known).join(', ')}`);
    }
    return new Type(host);
  });
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
