// The path of messages: out (requests waiting for a session or a batch, extensions, the transport, the fall-back
// from a WebSocket that never worked) and in (replies to requests, deliveries to subscriptions and listeners). The
// session (session.js) owns this path and decides when to handshake and connect; the replies that drive its state
// go back to it through `SessionControl`. The public API is in client.js.

import { isMeta } from './channels.js';
import { Status } from './defaults.js';
import { CallbackContext, ChannelRegistry, callSafely } from './dispatcher.js';
import { ExtensionChain } from './extension-chain.js';
import { TransportError } from './transports/transport.js';

/** @typedef {import('./defaults.js').Message} Message */

/**
 * A request waiting for its reply.
 *
 * @typedef {object} PendingRequest
 * @property {'handshake'|'connect'|'disconnect'|'subscribe'|'unsubscribe'|'publish'|'call'} kind
 * @property {Message} message
 * @property {(reply: Message) => void} [done]
 * @property {{channel: string, listener: Function}} [subscription] the subscription a subscribe was sent for
 * @property {boolean} [resubscribe] sent by the client itself after a re-handshake
 * @property {number} [timer]
 */

/**
 * What the message path needs of the session that owns it: its state, and the replies (and lost messages) that
 * drive it.
 *
 * @typedef {object} SessionControl
 * @property {string} status one of the `Status` values
 * @property {string | null} clientId the session id, once handshaken
 * @property {(advice: Record<string, any>) => void} updateAdvice takes the advice of a /meta/handshake or
 *   /meta/connect reply
 * @property {(reply: Message) => void} onHandshakeReply
 * @property {(reply: Message) => void} onConnectReply
 * @property {(reply: Message) => void} onDisconnectReply any /meta/disconnect reply, asked for or not
 * @property {(message: Message) => void} resend sends again a handshake or connect lost with a transport given up
 * @property {(channel: string) => void} resubscribeLater a re-subscription lost with its connection, not refused
 */

/** Messages out and in, below the session; see BayeuxClient for the API. */
export class MessagePath {
  /**
   * @param {import('./context.js').ClientContext} context
   * @param {SessionControl} session
   */
  constructor(context, session) {
    this.context = context;
    this.session = session;
    this.nextId = 0;
    this.batchDepth = 0;
    /** Messages waiting for a session or for a batch to end. @type {Message[]} */
    this.outbox = [];
    /** @type {Map<string, PendingRequest>} */
    this.pending = new Map();
    this.subscriptions = new ChannelRegistry('subscription');
    this.listeners = new ChannelRegistry('listener');
    this.report = context.report;
    this.extensions = new ExtensionChain(this.report);
    /** Messages the recovery extension let through, to process after the message being handled. @type {Message[]} */
    this.released = [];
    /** How deep `receive` calls are nested: released messages go once the outermost one is done. */
    this.receiving = 0;
    /** @type {import('./transports/transport.js').Transport[]} */
    this.transports = [];
    /** @type {import('./transports/transport.js').Transport | null} */
    this.transport = null;
    /** Transports given up for this client's life: a WebSocket that never worked. @type {Set<string>} */
    this.failedTransports = new Set();
    /** Transports the server offered in its last handshake reply. @type {string[] | null} */
    this.offeredByServer = null;
    const path = this;
    /** What the transports may ask of the client. @type {import('./transports/transport.js').TransportHost} */
    this.host = {
      url: () => context.config.url,
      receive: (batch) => path.receiveBatch(/** @type {Message[]} */ (batch)),
      get scheduler() {
        return context.ensureScheduler();
      },
      get config() {
        return context.config;
      },
      log: (level, ...args) => context.log(level, ...args),
    };
  }

  /** @returns {import('./transports/transport.js').Transport[]} available transports, in preference order */
  candidates() {
    return this.transports.filter((t) => !this.failedTransports.has(t.name) && t.isAvailable());
  }

  // ----------------------------------------------------------------------------------------- messages outgoing

  newId() {
    return String(++this.nextId);
  }

  /**
   * Registers a request and queues or sends its message.
   *
   * @param {Message} message
   * @param {PendingRequest} request
   * @param {(reply: Message) => void} [callback]
   * @returns {Promise<Message>}
   */
  request(message, request, callback) {
    message.id = this.newId();
    return new Promise((resolve) => {
      request.done = (reply) => {
        callSafely(this.report, callback, new CallbackContext('callback', message.channel, reply), reply);
        resolve(reply);
      };
      if (this.session.status === Status.DISCONNECTED || this.session.status === Status.DISCONNECTING) {
        this.finish(request, this.localFailure(message, 'disconnected'));
        return;
      }
      // Bounded memory: an application that publishes faster than the network carries gets failures, not a heap
      // that grows until the tab dies.
      if (this.pending.size >= this.context.config.maxPendingMessages) {
        this.finish(request, this.localFailure(message, `more than ${this.context.config.maxPendingMessages} messages waiting`));
        return;
      }
      this.pending.set(message.id, request);
      this.outbox.push(message);
      this.flushOutbox();
    });
  }

  flushOutbox() {
    if (this.batchDepth > 0 || !this.session.clientId || this.outbox.length === 0) {
      return;
    }
    this.sendNow(this.outbox.splice(0), false);
  }

  /**
   * Passes messages through the outgoing extensions and hands them to the transport.
   *
   * @param {Message[]} messages
   * @param {boolean} connect whether the envelope holds the /meta/connect (which may be held by the server)
   * @param {number} [timeout] how long the answers may take; `maxNetworkDelay` by default
   */
  sendNow(messages, connect, timeout = this.context.config.maxNetworkDelay) {
    const processed = [];
    for (const message of messages) {
      if (message.channel !== '/meta/handshake') {
        message.clientId = this.session.clientId;
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
   * @param {Message[]} messages processed by the extensions already
   * @param {boolean} connect
   * @param {number} timeout
   */
  transmit(transport, messages, connect, timeout) {
    this.context.log('debug', 'send', transport.name, messages);
    transport.send({ messages, timeout, connect }).catch((error) => this.onSendFailure(transport, messages, error));
  }

  /**
   * @param {import('./transports/transport.js').Transport} transport
   * @param {Message[]} messages
   * @param {unknown} error
   */
  onSendFailure(transport, messages, error) {
    const failure = error instanceof TransportError ? error : new TransportError('send failed', { cause: error });
    this.context.log('debug', `${transport.name} failed: ${failure.reason}`);
    const unanswered = messages.filter((m) => this.pending.has(m.id));
    if (unanswered.length === 0 || this.session.status === Status.DISCONNECTED) {
      return;
    }
    if (transport !== this.transport && this.failedTransports.has(transport.name) && this.transport) {
      // Sent before the fall-back and failed with the rest: they still have their chance on the new transport.
      this.resend(this.transport, unanswered);
      return;
    }
    const next = this.fallbackFrom(transport);
    if (next) {
      this.context.log('info', `${transport.name} does not work here (${failure.reason}); using ${next.name}`);
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
   * @param {Message[]} messages sent before, still without a reply
   */
  resend(transport, messages) {
    const others = [];
    for (const message of messages) {
      if (message.channel === '/meta/handshake' || message.channel === '/meta/connect') {
        // Sent again by the session, from scratch: a handshake's fields name the transports.
        this.pending.delete(message.id);
        this.session.resend(message);
      } else {
        others.push(message);
      }
    }
    if (others.length > 0) {
      this.transmit(transport, others, false, this.context.config.maxNetworkDelay);
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
    const offered = this.session.clientId ? this.offeredByServer : null;
    const next = candidates.find((t) => !offered || offered.includes(t.name)) ?? null;
    if (!next) {
      this.failedTransports.delete(transport.name);
    }
    return next;
  }

  // ----------------------------------------------------------------------------------------- messages incoming

  /** @param {Message[]} batch */
  receiveBatch(batch) {
    for (const message of batch) {
      try {
        this.receive(message);
      } catch (error) {
        this.context.log('error', 'Failed to process a message', message, error);
      }
    }
  }

  /**
   * Processes one message from the server (or made locally), after the incoming extensions. Public so that a
   * custom transport or an extension can feed messages in.
   *
   * @param {Message} raw
   */
  receive(raw) {
    if (!raw || typeof raw !== 'object' || typeof raw.channel !== 'string') {
      this.context.log('warn', 'Ignoring a message without a channel', raw);
      return;
    }
    this.receiving++;
    try {
      const message = this.extensions.incoming(raw);
      if (message) {
        this.afterExtensions(message);
      }
    } finally {
      this.receiving--;
    }
    if (this.receiving === 0) {
      this.processReleased();
    }
  }

  /**
   * Messages the recovery extension held back and now lets through: processed after the message being handled, or
   * at once if none is (a timer), past the extensions that come after it.
   *
   * @param {Message[]} messages
   */
  release(messages) {
    this.released.push(...messages);
    if (this.receiving === 0) {
      this.processReleased();
    }
  }

  processReleased() {
    while (this.released.length > 0) {
      const next = /** @type {Message} */ (this.released.shift());
      this.receiving++;
      try {
        const message = this.extensions.incomingAfter('recovery', next);
        if (message) {
          this.afterExtensions(message);
        }
      } catch (error) {
        this.context.log('error', 'Failed to process a message', next, error);
      } finally {
        this.receiving--;
      }
    }
  }

  /** @param {Message} message a message that passed the incoming extensions */
  afterExtensions(message) {
    this.context.log('debug', 'received', message);
    if (message.advice && typeof message.advice === 'object'
        && (message.channel === '/meta/handshake' || message.channel === '/meta/connect')) {
      this.session.updateAdvice(message.advice);
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

  /**
   * A reply (from the server, or made locally for a failure) to a request of this client.
   *
   * @param {Message} reply
   */
  receiveReply(reply) {
    const id = reply.id === undefined ? undefined : String(reply.id);
    if (reply.channel === '/meta/disconnect') {
      this.session.onDisconnectReply(reply);
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
    this.pending.delete(/** @type {string} */ (id));
    switch (request.kind) {
      case 'handshake':
        this.session.onHandshakeReply(reply);
        break;
      case 'connect':
        this.session.onConnectReply(reply);
        break;
      case 'subscribe':
        if (!reply.successful && request.subscription) {
          this.subscriptions.remove(request.subscription);
        } else if (!reply.successful && request.resubscribe) {
          const channel = request.message.subscription;
          if (reply.failure) {
            // Lost with its connection, not refused: the session still needs it.
            this.session.resubscribeLater(channel);
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
   * @param {Message} reply
   */
  finish(request, reply) {
    if (request.timer !== undefined) {
      this.context.scheduler?.clearTimeout(request.timer);
    }
    request.done?.(reply);
  }

  /** @param {Message} reply */
  notifyMeta(reply) {
    this.listeners.dispatch(reply, this.report);
    if (reply.successful === false) {
      this.listeners.dispatch({ ...reply, channel: '/meta/unsuccessful', originalChannel: reply.channel }, this.report);
    }
  }

  /** @param {Message} reply */
  notifyPublish(reply) {
    this.listeners.dispatch({ ...reply, channel: '/meta/publish', originalChannel: reply.channel }, this.report);
    if (reply.successful === false) {
      this.listeners.dispatch({ ...reply, channel: '/meta/unsuccessful', originalChannel: reply.channel }, this.report);
    }
  }

  /** @param {Message} message */
  deliver(message) {
    this.subscriptions.dispatch(message, this.report);
    this.listeners.dispatch(message, this.report);
  }

  // --------------------------------------------------------------------------------------------------- helpers

  /**
   * A failed reply made by the client itself.
   *
   * @param {Message} message the request
   * @param {string} reason
   * @param {string} [error] the Bayeux error string; the reason by default
   * @param {TransportError} [exception]
   * @returns {Message}
   */
  localFailure(message, reason, error, exception) {
    /** @type {Message} */
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
   * @param {Message} message
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
   * @param {Message} message
   * @param {((reply: Message) => void) | undefined} callback
   * @param {string | null} failure the reason, or null for success
   * @returns {Promise<Message>}
   */
  settleLocally(message, callback, failure) {
    const reply = failure ? this.localFailure(message, failure) : { ...message, successful: true };
    return Promise.resolve().then(() => {
      callSafely(this.report, callback, new CallbackContext('callback', message.channel, reply), reply);
      return reply;
    });
  }

  /**
   * Ends all traffic of a session that is over: transports closed, and every request still waiting (but a
   * disconnect, which its reply completes) failed locally; subscriptions are forgotten.
   */
  abandon() {
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
  }
}
