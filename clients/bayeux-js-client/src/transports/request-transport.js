// What long-polling and callback-polling share: one held connect plus one other request at a time.
//
// Browsers open few HTTP/1.1 connections per host, and a held connect occupies one for up to the server's timeout.
// Other messages therefore go one request at a time, in order; those that wait meanwhile leave together in the
// next request, which also keeps a client's publishes in the order it made them.

import { CookieJar } from './cookies.js';
import { Transport, TransportError } from './transport.js';

/** @typedef {import('../defaults.js').Message} Message */

/** The most envelopes merged into one request, so a burst cannot make a body the server refuses as too large. */
const MAX_MERGED_ENVELOPES = 100;

export class RequestTransport extends Transport {
  /**
   * @param {string} name
   * @param {import('./transport.js').TransportHost} host
   */
  constructor(name, host) {
    super(name, host);
    /** @type {{envelope: import('./transport.js').Envelope, resolve: () => void, reject: (e: unknown) => void}[]} */
    this.queue = [];
    this.busy = false;
    /** Ways to stop the requests in flight. @type {Set<() => void>} */
    this.inFlight = new Set();
    /** Outside browsers: the cookies the server set, sent back as a browser would. */
    this.cookies = CookieJar.needed() ? new CookieJar() : null;
  }

  /**
   * The headers of a request: the configured ones, and the cookies outside browsers.
   *
   * @param {string} url
   * @returns {Record<string, string>}
   */
  headersFor(url) {
    return { ...(this.host.config.requestHeaders ?? {}), ...this.cookies?.headersFor(url) };
  }

  /**
   * Keeps the cookies a response sets (outside browsers).
   *
   * @param {string} url
   * @param {Response} response
   */
  keepCookies(url, response) {
    this.cookies?.store(url, response.headers);
  }

  /** @param {import('./transport.js').Envelope} envelope @returns {Promise<void>} */
  send(envelope) {
    if (envelope.connect) {
      return this.exchange(envelope.messages, envelope.timeout);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ envelope, resolve, reject });
      this.pump();
    });
  }

  pump() {
    if (this.busy || this.queue.length === 0) {
      return;
    }
    const group = this.queue.splice(0, MAX_MERGED_ENVELOPES);
    const messages = group.flatMap((entry) => entry.envelope.messages);
    const timeout = Math.max(...group.map((entry) => entry.envelope.timeout));
    this.busy = true;
    this.exchange(messages, timeout).then(
      () => group.forEach((entry) => entry.resolve()),
      (error) => group.forEach((entry) => entry.reject(error)),
    ).finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  /**
   * Runs `attempt` with a deadline and a way to abort it.
   *
   * @template T
   * @param {number} timeout
   * @param {(signal: AbortSignal) => Promise<T>} attempt
   * @returns {Promise<T>}
   */
  async withDeadline(timeout, attempt) {
    const controller = new AbortController();
    const abort = () => controller.abort(new TransportError('aborted'));
    this.inFlight.add(abort);
    const timer = this.host.scheduler.setTimeout(
      () => controller.abort(new TransportError(`no response within ${timeout} ms`)), timeout);
    try {
      return await attempt(controller.signal);
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason instanceof TransportError) {
        throw controller.signal.reason;
      }
      if (error instanceof TransportError) {
        throw error;
      }
      throw new TransportError('network error', { cause: error });
    } finally {
      this.host.scheduler.clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  /**
   * Sends messages in one or more requests and hands every response's messages to the host.
   *
   * @param {Message[]} messages
   * @param {number} timeout
   * @returns {Promise<void>}
   */
  exchange(messages, timeout) { // eslint-disable-line no-unused-vars
    return Promise.reject(new TransportError('not implemented'));
  }

  abort() {
    for (const abort of [...this.inFlight]) {
      abort();
    }
    const waiting = this.queue.splice(0);
    for (const entry of waiting) {
      entry.reject(new TransportError('aborted'));
    }
  }
}
