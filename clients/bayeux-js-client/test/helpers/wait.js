// Waiting for events in tests: every wait is a promise with a deadline, never a sleep.

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what what was awaited, for the failure message
 * @returns {Promise<T>}
 */
export function within(promise, ms, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Resolves when the client reaches a status (at once if it is there).
 *
 * @param {import('../../src/index.js').BayeuxClient} client
 * @param {string} status
 * @param {number} [ms]
 */
export function statusReached(client, status, ms = 10000) {
  if (client.getStatus() === status) {
    return Promise.resolve();
  }
  let remove;
  const reached = new Promise((resolve) => {
    remove = client.addStatusListener((now) => {
      if (now === status) {
        resolve(undefined);
      }
    });
  });
  return within(reached, ms, `status ${status} (now ${client.getStatus()})`).finally(() => remove());
}

/** Collects messages and hands them out in order to whoever waits. */
export class Inbox {
  constructor() {
    /** @type {any[]} */
    this.messages = [];
    /** @type {{predicate: (m: any) => boolean, resolve: (m: any) => void}[]} */
    this.waiters = [];
    /** Messages handed out; a set of our own, as one message object may reach several inboxes. */
    this.taken = new WeakSet();
    this.push = this.push.bind(this);
  }

  /** @param {any} message */
  push(message) {
    this.messages.push(message);
    const waiter = this.waiters.find((w) => w.predicate(message));
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  }

  /**
   * The first message (already received or to come) that matches and has not been taken.
   *
   * @param {(m: any) => boolean} [predicate]
   * @param {number} [ms]
   */
  take(predicate = () => true, ms = 10000) {
    const message = this.messages.find((m) => !this.taken.has(m) && predicate(m));
    if (message) {
      this.taken.add(message);
      return Promise.resolve(message);
    }
    const found = new Promise((resolve) => {
      this.waiters.push({ predicate, resolve: (m) => { this.taken.add(m); resolve(m); } });
    });
    return within(found, ms, 'a message');
  }
}
