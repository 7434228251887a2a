// What every part of one client shares: its configuration, its timers, its log, and where the exceptions of user
// code go. Made by BayeuxClient and handed to the session (session.js) and the message path (message-path.js).

import { DEFAULTS } from './defaults.js';
import { createScheduler } from './scheduler.js';

const LOG_LEVELS = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/** The configuration, timers, log and error reporting of one client. */
export class ClientContext {
  /** @param {object} owner the client, `this` of the `onListenerException` handler */
  constructor(owner) {
    this.owner = owner;
    /** @type {import('./defaults.js').Config} */
    this.config = { ...DEFAULTS };
    /** @type {import('./scheduler.js').Scheduler | null} */
    this.scheduler = null;
    /** Where an exception thrown by user code goes (a function, handed to every `callSafely`). */
    this.report = (/** @type {unknown} */ error, /** @type {import('./dispatcher.js').CallbackContext} */ context) =>
      this.reportListenerException(error, context);
  }

  /** @returns {import('./scheduler.js').Scheduler} the timers, made at first use (they depend on the configuration) */
  ensureScheduler() {
    if (!this.scheduler) {
      this.scheduler = createScheduler(this.config.useWorkerTimers,
        (text, error) => this.log('info', text, error ?? ''));
    }
    return this.scheduler;
  }

  /**
   * @param {unknown} error
   * @param {import('./dispatcher.js').CallbackContext} context
   */
  reportListenerException(error, context) {
    const handler = this.config.onListenerException;
    if (typeof handler === 'function') {
      try {
        handler.call(this.owner, error, context);
        return;
      } catch (secondary) {
        this.log('error', 'onListenerException threw', secondary);
      }
    }
    this.log('warn', `A ${context.kind} callback${context.channel ? ` for ${context.channel}` : ''} threw`, error);
  }

  /**
   * @param {string} level
   * @param {...unknown} args
   */
  log(level, ...args) {
    const threshold = LOG_LEVELS[/** @type {keyof LOG_LEVELS} */ (this.config.logLevel)] ?? LOG_LEVELS.warn;
    if ((LOG_LEVELS[/** @type {keyof LOG_LEVELS} */ (level)] ?? LOG_LEVELS.info) < threshold) {
      return;
    }
    const logger = /** @type {Record<string, any>} */ (this.config.logger ?? globalThis.console);
    const method = logger?.[level] ?? logger?.log;
    if (typeof method === 'function') {
      method.call(logger, '[bayeux]', ...args);
    }
  }
}
