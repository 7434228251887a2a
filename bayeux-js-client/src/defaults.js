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

/** Every option of `configure()`, with its default; the type declarations document each. */
export const DEFAULTS = Object.freeze({
  url: '',
  transports: ['websocket', 'long-polling', 'callback-polling'],
  maxNetworkDelay: 10000,
  backoffIncrement: 1000,
  maxBackoff: 60000,
  autoResubscribe: true,
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

/** Until the server advises otherwise: a held connect may last a minute. */
export const DEFAULT_ADVICE = Object.freeze({ reconnect: 'retry', interval: 0, timeout: 60000, maxInterval: 10000 });

/**
 * @param {unknown} value
 * @param {number} fallback
 * @returns {number} the value if it is a usable duration, else the fallback
 */
export function numberOr(value, fallback) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
