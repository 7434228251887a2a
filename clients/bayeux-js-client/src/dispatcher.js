// Who hears a message: subscriptions (which the server knows about) and listeners (which it does not), both keyed
// by channel pattern, and the isolation of every user callback.

import { dispatchKeys } from './channels.js';

/** What a call to user code was for, as reported to `onListenerException`. */
export class CallbackContext {
  /**
   * @param {string} kind "subscription", "listener", "status", "callback" or "extension"
   * @param {string} [channel]
   * @param {object} [message]
   */
  constructor(kind, channel, message) {
    this.kind = kind;
    this.channel = channel;
    this.message = message;
  }
}

/**
 * Calls user code so that nothing it throws can break the client: the error goes to `report` instead.
 *
 * @param {(error: unknown, context: CallbackContext) => void} report
 * @param {Function | undefined} fn
 * @param {CallbackContext} context
 * @param {...unknown} args
 */
export function callSafely(report, fn, context, ...args) {
  if (typeof fn !== 'function') {
    return undefined;
  }
  try {
    return fn(...args);
  } catch (error) {
    report(error, context);
    return undefined;
  }
}

/** A registry of handles keyed by channel pattern, dispatching each message to every matching handle. */
export class ChannelRegistry {
  /** @param {string} kind "subscription" or "listener", for error reports */
  constructor(kind) {
    this.kind = kind;
    /** @type {Map<string, Set<{channel: string, listener: Function}>>} */
    this.byChannel = new Map();
  }

  /**
   * @param {{channel: string, listener: Function}} handle
   * @returns {boolean} whether it is the first handle of its channel
   */
  add(handle) {
    let set = this.byChannel.get(handle.channel);
    const first = !set || set.size === 0;
    if (!set) {
      set = new Set();
      this.byChannel.set(handle.channel, set);
    }
    set.add(handle);
    return first;
  }

  /**
   * @param {{channel: string, listener: Function}} handle
   * @returns {boolean} whether it was the last handle of its channel
   */
  remove(handle) {
    const set = this.byChannel.get(handle.channel);
    if (!set || !set.delete(handle)) {
      return false;
    }
    if (set.size === 0) {
      this.byChannel.delete(handle.channel);
      return true;
    }
    return false;
  }

  /** @param {{channel: string, listener: Function}} handle @returns {boolean} */
  has(handle) {
    return this.byChannel.get(handle.channel)?.has(handle) ?? false;
  }

  /** @returns {string[]} the channels with at least one handle */
  channels() {
    return [...this.byChannel.keys()];
  }

  clear() {
    this.byChannel.clear();
  }

  /**
   * Calls every handle whose pattern matches the message's channel.
   *
   * @param {import('./defaults.js').Message} message
   * @param {(error: unknown, context: CallbackContext) => void} report
   * @returns {number} how many handles were called
   */
  dispatch(message, report) {
    let count = 0;
    for (const key of dispatchKeys(message.channel)) {
      const set = this.byChannel.get(key);
      if (!set) {
        continue;
      }
      // A listener may unsubscribe itself or others while we iterate: walk a copy, skip the removed.
      for (const handle of [...set]) {
        if (set.has(handle)) {
          count++;
          callSafely(report, handle.listener, new CallbackContext(this.kind, key, message), message);
        }
      }
    }
    return count;
  }
}
