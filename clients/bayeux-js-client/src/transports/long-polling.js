// long-polling: each envelope is the JSON body of a POST; the response body holds the replies and any messages.

import { RequestTransport } from './request-transport.js';
import { TransportError, parseBatch } from './transport.js';

/** @typedef {import('../defaults.js').Message} Message */

export class LongPollingTransport extends RequestTransport {
  /** @param {import('./transport.js').TransportHost} host */
  constructor(host) {
    super('long-polling', host);
  }

  isAvailable() {
    return typeof (this.host.config.fetch ?? globalThis.fetch) === 'function';
  }

  /**
   * @param {Message[]} messages
   * @param {number} timeout
   */
  exchange(messages, timeout) {
    const fetchFn = this.host.config.fetch ?? globalThis.fetch;
    const url = this.host.url();
    return this.withDeadline(timeout, async (signal) => {
      const response = await fetchFn(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json;charset=UTF-8', ...this.headersFor(url) },
        body: JSON.stringify(messages),
        // Cross-origin pages need the browser cookie sent, as the server's CORS answer allows.
        credentials: 'include',
        cache: 'no-store',
        signal,
      });
      this.keepCookies(url, response);
      const text = await response.text();
      if (response.status !== 200) {
        throw new TransportError(`HTTP ${response.status}`, { httpCode: response.status });
      }
      const batch = parseBatch(text);
      this.proven = true;
      this.host.receive(batch);
    });
  }
}
