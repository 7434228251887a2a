// callback-polling (JSONP): GET <url>?jsonp=<callback>&message=<JSON>, answered by a script calling <callback>.
//
// In a browser the request is a <script> element, which is what lets it cross origins without CORS. Elsewhere
// (Node.js) the answer is fetched and the JSON taken out of the call without evaluating anything.

import { RequestTransport } from './request-transport.js';
import { TransportError, parseBatch, validateBatch } from './transport.js';

/** @typedef {import('../defaults.js').Message} Message */

const WRAPPED = /^\s*(?:\/\*\*\/\s*)?([A-Za-z0-9_$.-]+)\(([\s\S]*)\)\s*;?\s*$/;
let callbackCounter = 0;

export class CallbackPollingTransport extends RequestTransport {
  /** @param {import('./transport.js').TransportHost} host */
  constructor(host) {
    super('callback-polling', host);
    this.prefix = `_bayeux_jsonp_${Math.random().toString(36).slice(2, 8)}_`;
  }

  isAvailable() {
    return this.useScript() || typeof (this.host.config.fetch ?? globalThis.fetch) === 'function';
  }

  useScript() {
    return typeof document !== 'undefined' && typeof document.createElement === 'function';
  }

  /**
   * @param {Message[]} messages
   * @param {number} timeout
   */
  async exchange(messages, timeout) {
    // URLs are limited in length (proxies, servers); a batch that does not fit is split, in order.
    for (const chunk of this.split(messages)) {
      await this.withDeadline(timeout, (signal) => this.request(chunk, signal));
    }
  }

  /** @param {Message[]} messages @returns {Message[][]} */
  split(messages) {
    const limit = this.host.config.maxURLLength;
    const chunks = [];
    /** @type {Message[]} */
    let current = [];
    for (const message of messages) {
      const candidate = [...current, message];
      if (current.length > 0 && this.urlFor(candidate, 'x').length > limit) {
        chunks.push(current);
        current = [message];
      } else {
        current = candidate;
      }
    }
    chunks.push(current);
    return chunks;
  }

  /** @param {Message[]} messages @param {string} callback */
  urlFor(messages, callback) {
    const base = this.host.url();
    const separator = base.includes('?') ? '&' : '?';
    return `${base}${separator}jsonp=${callback}&message=${encodeURIComponent(JSON.stringify(messages))}`;
  }

  /** @param {Message[]} messages @param {AbortSignal} signal */
  async request(messages, signal) {
    const callback = `${this.prefix}${++callbackCounter}`;
    const url = this.urlFor(messages, callback);
    const batch = this.useScript()
      ? validateBatch(await this.loadScript(url, callback, signal))
      : await this.fetchScript(url, callback, signal);
    this.proven = true;
    this.host.receive(batch);
  }

  /** @param {string} url @param {string} callback @param {AbortSignal} signal */
  async fetchScript(url, callback, signal) {
    const fetchFn = this.host.config.fetch ?? globalThis.fetch;
    const response = await fetchFn(url, { headers: this.headersFor(url), credentials: 'include', cache: 'no-store', signal });
    this.keepCookies(url, response);
    const text = await response.text();
    if (response.status !== 200) {
      throw new TransportError(`HTTP ${response.status}`, { httpCode: response.status });
    }
    const match = WRAPPED.exec(text);
    if (!match || match[1] !== callback) {
      throw new TransportError('response is not a call of the JSONP callback');
    }
    return parseBatch(match[2]);
  }

  /** @param {string} url @param {string} callback @param {AbortSignal} signal */
  loadScript(url, callback, signal) {
    const scope = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis));
    return new Promise((resolve, reject) => {
      const script = document.createElement('script');
      /** @type {unknown} */
      let result;
      let called = false;
      const finish = (/** @type {unknown} */ error) => {
        script.onload = null;
        script.onerror = null;
        signal.removeEventListener('abort', onAbort);
        script.remove();
        // A script still loading may call back later: leave a no-op behind that removes itself when it does.
        scope[callback] = () => { delete scope[callback]; };
        if (called) {
          delete scope[callback];
        }
        if (error) {
          reject(error);
        } else {
          resolve(result);
        }
      };
      const onAbort = () => finish(signal.reason ?? new TransportError('aborted'));
      scope[callback] = (/** @type {unknown} */ batch) => {
        called = true;
        result = batch;
      };
      script.onload = () => finish(called ? undefined : new TransportError('script loaded without calling back'));
      script.onerror = () => finish(new TransportError('script failed to load'));
      signal.addEventListener('abort', onAbort);
      script.async = true;
      script.src = url;
      document.head.appendChild(script);
    });
  }
}
