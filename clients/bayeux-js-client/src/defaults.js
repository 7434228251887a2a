// What the layers of the client share: its states, its defaults, and small helpers.

/** The states a client can be in; `getStatus()` returns one of these. */
export const Status = Object.freeze({
  DISCONNECTED: 'disconnected',
  HANDSHAKING: 'handshaking',
  CONNECTED: 'connected',
  UNCONNECTED: 'unconnected',
  REHANDSHAKING: 'rehandshaking',
  DISCONNECTING: 'disconnecting',
});

/**
 * A Bayeux message, as sent or received: `channel`, and whatever fields the protocol, the extensions and the
 * application put in it (`Message` in types/index.d.ts lists the usual ones).
 *
 * @typedef {{channel: string, [field: string]: any}} Message
 */

/**
 * Every option of `configure()`, all set (`ClientConfig` in types/index.d.ts documents each).
 *
 * @typedef {object} Config
 * @property {string} url
 * @property {string[]} transports
 * @property {number} maxNetworkDelay
 * @property {number} backoffIncrement
 * @property {number} maxBackoff
 * @property {boolean} autoResubscribe
 * @property {boolean} recovery
 * @property {number} recoveryMaxChannels
 * @property {number} maxPendingMessages
 * @property {number} maxURLLength
 * @property {Record<string, string>} requestHeaders
 * @property {boolean} useWorkerTimers
 * @property {string} logLevel
 * @property {Record<string, any> | undefined} logger
 * @property {Function | undefined} onListenerException
 * @property {(new (url: string) => WebSocket) | undefined} WebSocket
 * @property {string | undefined} webSocketURL
 * @property {typeof fetch | undefined} fetch
 * @property {() => number} random
 */

/**
 * Every option of `configure()`, with its default.
 *
 * @type {Readonly<Config>}
 */
export const DEFAULTS = Object.freeze({
  url: '',
  transports: ['websocket', 'long-polling', 'callback-polling'],
  maxNetworkDelay: 10000,
  backoffIncrement: 1000,
  maxBackoff: 60000,
  autoResubscribe: true,
  recovery: true,
  recoveryMaxChannels: 1000,
  maxPendingMessages: 1000,
  maxURLLength: 2000,
  requestHeaders: {},
  useWorkerTimers: true,
  logLevel: 'warn',
  logger: undefined,
  onListenerException: undefined,
  WebSocket: undefined,
  webSocketURL: undefined,
  fetch: undefined,
  random: Math.random,
});

/**
 * Server advice: the Bayeux `advice` field, over the defaults.
 *
 * @typedef {{reconnect: string, interval: number, timeout: number, maxInterval: number, [field: string]: any}} Advice
 */

/**
 * Until the server advises otherwise: a held connect may last a minute.
 *
 * @type {Readonly<Advice>}
 */
export const DEFAULT_ADVICE = Object.freeze({ reconnect: 'retry', interval: 0, timeout: 60000, maxInterval: 10000 });

/**
 * @param {unknown} value
 * @param {number} fallback
 * @returns {number} the value if it is a usable duration, else the fallback
 */
export function numberOr(value, fallback) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
