// The client's extensions, in registration order, each call isolated.

import { CallbackContext } from './dispatcher.js';

/** @typedef {import('./defaults.js').Message} Message */

/**
 * @typedef {object} Extension
 * @property {(message: Message) => Message | null | undefined} [outgoing] may change the message, or return null to
 *   drop it
 * @property {(message: Message) => Message | null | undefined} [incoming] may change the message, or return null to
 *   drop it
 * @property {(name: string, client: object) => void} [registered]
 * @property {() => void} [unregistered]
 * @property {(handshake: Message) => Message | null | undefined} [replayHandshake] may answer a handshake locally
 *   (the reload extension does) instead of letting it reach the server
 */

export class ExtensionChain {
  /** @param {(error: unknown, context: CallbackContext) => void} report */
  constructor(report) {
    this.report = report;
    /** @type {{name: string, extension: Extension}[]} */
    this.entries = [];
  }

  /**
   * @param {string} name
   * @param {Extension} extension
   * @returns {boolean} false if the name is taken
   */
  add(name, extension) {
    if (this.entries.some((entry) => entry.name === name)) {
      return false;
    }
    this.entries.push({ name, extension });
    return true;
  }

  /** @param {string} name @returns {Extension | undefined} the removed extension */
  remove(name) {
    const index = this.entries.findIndex((entry) => entry.name === name);
    return index < 0 ? undefined : this.entries.splice(index, 1)[0].extension;
  }

  /** @param {string} name @returns {Extension | undefined} */
  get(name) {
    return this.entries.find((entry) => entry.name === name)?.extension;
  }

  /**
   * Outgoing messages pass the extensions in registration order.
   *
   * @param {Message} message
   * @returns {Message | null}
   */
  outgoing(message) {
    return this.apply(message, 'outgoing', this.entries);
  }

  /**
   * Incoming messages pass them in reverse order, so that an extension sees replies as it left requests.
   *
   * @param {Message} message
   * @returns {Message | null}
   */
  incoming(message) {
    return this.apply(message, 'incoming', [...this.entries].reverse());
  }

  /**
   * Passes a message through the incoming extensions that come after the named one (those it would have met next).
   *
   * @param {string} name
   * @param {Message} message
   * @returns {Message | null}
   */
  incomingAfter(name, message) {
    const reversed = [...this.entries].reverse();
    const index = reversed.findIndex((entry) => entry.name === name);
    return this.apply(message, 'incoming', reversed.slice(index + 1));
  }

  /**
   * @param {Message} handshake
   * @returns {Message | null} a reply made by an extension, if one answers the handshake itself
   */
  replayHandshake(handshake) {
    for (const { name, extension } of this.entries) {
      if (typeof extension.replayHandshake !== 'function') {
        continue;
      }
      try {
        const reply = extension.replayHandshake(handshake);
        if (reply) {
          return reply;
        }
      } catch (error) {
        this.report(error, new CallbackContext('extension', name, handshake));
      }
    }
    return null;
  }

  /**
   * @param {Message} message
   * @param {'outgoing' | 'incoming'} direction
   * @param {{name: string, extension: Extension}[]} entries
   * @returns {Message | null}
   */
  apply(message, direction, entries) {
    let current = message;
    for (const { name, extension } of entries) {
      const hook = extension[direction];
      if (typeof hook !== 'function') {
        continue;
      }
      try {
        const result = hook.call(extension, current);
        if (result === null) {
          return null;
        }
        if (result !== undefined) {
          current = result;
        }
      } catch (error) {
        // A broken extension must not stop the message: it goes on as the extension received it.
        this.report(error, new CallbackContext('extension', name, current));
      }
    }
    return current;
  }
}
