// websocket: one socket per client; each envelope is one text frame, and replies and messages arrive in frames of
// the server's choosing. An envelope is complete when every message in it has had its reply.
//
// The held /meta/connect is the heart-beat: its reply is due within the server's timeout, so an envelope deadline
// that passes means the socket is dead (a sleeping laptop, a silent proxy) even if no close event ever comes. The
// socket is then closed and every envelope on it fails, which sends the client into its reconnection logic.

import { Transport, TransportError, parseBatch } from './transport.js';

const OPEN = 1;

/**
 * @typedef {object} Waiting
 * @property {Set<string>} ids ids of the messages still without a reply
 * @property {() => void} resolve
 * @property {(error: unknown) => void} reject
 * @property {number | undefined} timer
 * @property {WebSocket | null} socket the socket it was written to, once written
 */

export class WebSocketTransport extends Transport {
  /** @param {import('./transport.js').TransportHost} host */
  constructor(host) {
    super('websocket', host);
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {Promise<WebSocket> | null} */
    this.opening = null;
    /** @type {WebSocket | null} */
    this.openingSocket = null;
    /** @type {Set<Waiting>} */
    this.waiting = new Set();
  }

  webSocketClass() {
    return this.host.config.WebSocket ?? globalThis.WebSocket;
  }

  isAvailable() {
    return typeof this.webSocketClass() === 'function';
  }

  /** @returns {string} the endpoint URL with a ws: or wss: scheme */
  socketURL() {
    const configured = this.host.config.webSocketURL ?? this.host.url();
    const base = typeof location !== 'undefined' ? location.href : undefined;
    const url = new URL(configured, base);
    if (url.protocol === 'http:') {
      url.protocol = 'ws:';
    } else if (url.protocol === 'https:') {
      url.protocol = 'wss:';
    }
    return url.toString();
  }

  /** @param {import('./transport.js').Envelope} envelope @returns {Promise<void>} */
  send(envelope) {
    return new Promise((resolve, reject) => {
      /** @type {Waiting} */
      const entry = { ids: new Set(), resolve, reject, timer: undefined, socket: null };
      for (const message of envelope.messages) {
        if (message.id !== undefined) {
          entry.ids.add(String(message.id));
        }
      }
      this.waiting.add(entry);
      this.open().then((socket) => {
        if (!this.waiting.has(entry)) {
          return;
        }
        entry.socket = socket;
        if (entry.ids.size > 0) {
          entry.timer = this.host.scheduler.setTimeout(
            () => this.fail(socket, new TransportError(`no reply within ${envelope.timeout} ms`)), envelope.timeout);
        }
        try {
          socket.send(JSON.stringify(envelope.messages));
        } catch (error) {
          this.fail(socket, new TransportError('WebSocket send failed', { cause: error }));
          return;
        }
        if (entry.ids.size === 0) {
          this.settle(entry);
        }
      }, (error) => {
        if (this.waiting.delete(entry)) {
          reject(error);
        }
      });
    });
  }

  /** @returns {Promise<WebSocket>} */
  open() {
    if (this.socket && this.socket.readyState === OPEN) {
      return Promise.resolve(this.socket);
    }
    if (this.opening) {
      return this.opening;
    }
    this.opening = new Promise((resolve, reject) => {
      const Socket = this.webSocketClass();
      /** @type {WebSocket} */
      let socket;
      try {
        socket = new Socket(this.socketURL());
      } catch (error) {
        this.opening = null;
        reject(new TransportError('cannot open WebSocket', { cause: error }));
        return;
      }
      this.openingSocket = socket;
      const timeout = this.host.config.maxNetworkDelay;
      const timer = this.host.scheduler.setTimeout(() => {
        if (this.openingSocket === socket) {
          this.openingSocket = null;
          this.opening = null;
          closeQuietly(socket);
          reject(new TransportError(`WebSocket not open within ${timeout} ms`));
        }
      }, timeout);
      socket.onopen = () => {
        this.host.scheduler.clearTimeout(timer);
        if (this.openingSocket !== socket) {
          closeQuietly(socket);
          return;
        }
        this.openingSocket = null;
        this.opening = null;
        this.socket = socket;
        resolve(socket);
      };
      // Browsers follow an error with a close event, which carries the code; some runtimes (Node.js 20) send the
      // error alone when the connection cannot be made, so an error counts as the end of the socket either way.
      const ended = (/** @type {TransportError} */ error) => {
        this.host.scheduler.clearTimeout(timer);
        if (this.openingSocket === socket) {
          this.openingSocket = null;
          this.opening = null;
          closeQuietly(socket);
          reject(error);
          return;
        }
        this.fail(socket, error);
      };
      socket.onerror = () => ended(new TransportError(
        this.openingSocket === socket ? 'WebSocket failed to open' : 'WebSocket error'));
      socket.onclose = (event) => ended(new TransportError(this.openingSocket === socket
        ? `WebSocket closed before opening (${event.code})` : `WebSocket closed (${event.code})`,
      { closeCode: event.code }));
      socket.onmessage = (event) => this.onMessage(socket, event);
    });
    return this.opening;
  }

  /** @param {WebSocket} socket @param {MessageEvent} event */
  onMessage(socket, event) {
    if (socket !== this.socket) {
      return;
    }
    if (typeof event.data !== 'string') {
      this.fail(socket, new TransportError('binary WebSocket message'));
      return;
    }
    let batch;
    try {
      batch = parseBatch(event.data);
    } catch (error) {
      this.fail(socket, /** @type {TransportError} */ (error));
      return;
    }
    this.proven = true;
    this.host.receive(batch);
    for (const message of batch) {
      if (message.id === undefined) {
        continue;
      }
      const id = String(message.id);
      for (const entry of [...this.waiting]) {
        if (entry.socket === socket && entry.ids.delete(id) && entry.ids.size === 0) {
          this.settle(entry);
        }
      }
    }
  }

  /** @param {Waiting} entry */
  settle(entry) {
    this.host.scheduler.clearTimeout(entry.timer);
    if (this.waiting.delete(entry)) {
      entry.resolve();
    }
  }

  /**
   * Closes a socket and fails every envelope written to it.
   *
   * @param {WebSocket} socket
   * @param {TransportError} error
   */
  fail(socket, error) {
    if (this.socket === socket) {
      this.socket = null;
    }
    closeQuietly(socket);
    for (const entry of [...this.waiting]) {
      if (entry.socket === socket) {
        this.waiting.delete(entry);
        this.host.scheduler.clearTimeout(entry.timer);
        entry.reject(error);
      }
    }
  }

  abort() {
    const error = new TransportError('aborted');
    if (this.openingSocket) {
      const socket = this.openingSocket;
      this.openingSocket = null;
      this.opening = null;
      closeQuietly(socket);
    }
    if (this.socket) {
      this.fail(this.socket, error);
    }
    for (const entry of [...this.waiting]) {
      this.waiting.delete(entry);
      this.host.scheduler.clearTimeout(entry.timer);
      entry.reject(error);
    }
  }
}

/** @param {WebSocket} socket */
function closeQuietly(socket) {
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
  socket.onopen = null;
  try {
    if (socket.readyState <= OPEN) {
      socket.close(1000);
    }
  } catch {
    // Closing a socket that is already failing may throw; it is going away either way.
  }
}
