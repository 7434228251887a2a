// Clients for tests: short back-offs, quiet logs, and one place that disconnects them all afterwards.

import { BayeuxClient } from '../../src/index.js';

export const TRANSPORTS = ['websocket', 'long-polling', 'callback-polling'];

export class ClientPool {
  constructor() {
    /** @type {BayeuxClient[]} */
    this.clients = [];
  }

  /**
   * @param {string} url
   * @param {string | string[]} transports
   * @param {object} [options]
   * @returns {BayeuxClient}
   */
  create(url, transports, options = {}) {
    const client = new BayeuxClient({
      url,
      transports: Array.isArray(transports) ? transports : [transports],
      backoffIncrement: 100,
      maxBackoff: 400,
      maxNetworkDelay: 5000,
      logLevel: 'error',
      ...options,
    });
    this.clients.push(client);
    return client;
  }

  async disconnectAll() {
    const clients = this.clients.splice(0);
    await Promise.all(clients.map((client) => client.disconnect()));
  }
}
