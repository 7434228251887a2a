// What every transport shares: its name, its host client, and the error type a failed exchange rejects with.

/** @typedef {import('../defaults.js').Message} Message */

/**
 * Why an exchange with the server failed: a network error, a non-200 HTTP status, a body that is not Bayeux
 * JSON, a timeout, or a WebSocket that closed.
 */
export class TransportError extends Error {
  /**
   * @param {string} reason a short description, shown to listeners as `failure.reason`
   * @param {object} [details]
   * @param {number} [details.httpCode] the HTTP status, when there was one
   * @param {number} [details.closeCode] the WebSocket close code, when there was one
   * @param {unknown} [details.cause] the underlying error
   */
  constructor(reason, details = {}) {
    super(reason);
    this.name = 'TransportError';
    this.reason = reason;
    this.httpCode = details.httpCode;
    this.closeCode = details.closeCode;
    if (details.cause !== undefined) {
      this.cause = details.cause;
    }
  }
}

/**
 * An envelope: the messages of one send, and how long their answers may take.
 *
 * @typedef {object} Envelope
 * @property {Message[]} messages the messages, already through the outgoing extensions
 * @property {number} timeout milliseconds before the exchange counts as failed
 * @property {boolean} connect whether this is the lone /meta/connect
 */

/**
 * The client side of a transport: what a transport may ask of its client.
 *
 * @typedef {object} TransportHost
 * @property {() => string} url the endpoint URL
 * @property {(batch: unknown) => void} receive hands over the messages of one response or frame, in order
 * @property {import('../scheduler.js').Scheduler} scheduler
 * @property {import('../defaults.js').Config} config the client's configuration
 * @property {(level: string, ...args: unknown[]) => void} log
 */

/** The base of the three transports. */
export class Transport {
  /**
   * @param {string} name the name used in handshakes and connects
   * @param {TransportHost} host
   */
  constructor(name, host) {
    this.name = name;
    this.host = host;
    /** Set once a response has arrived over this transport: a failure after that is not a reason to fall back. */
    this.proven = false;
  }

  /** @returns {boolean} whether this environment can run the transport */
  isAvailable() {
    return true;
  }

  /**
   * Sends an envelope. The messages of the answer reach the host through `receive` before the promise settles.
   *
   * @param {Envelope} envelope
   * @returns {Promise<void>} resolves when every message of the envelope has its reply
   */
  send(envelope) { // eslint-disable-line no-unused-vars
    return Promise.reject(new TransportError('not implemented'));
  }

  /** Stops every exchange in progress; their promises reject. The transport stays usable. */
  abort() {}
}

/**
 * Parses a response body into a batch, failing with a TransportError when it is not a JSON array or object.
 *
 * @param {string} text
 * @returns {Message[]}
 */
export function parseBatch(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TransportError('response is not JSON', { cause: error });
  }
  return validateBatch(parsed);
}

/**
 * Checks that a parsed response is a batch: a non-empty array of messages (a lone message is wrapped).
 *
 * @param {unknown} parsed
 * @returns {Message[]}
 */
export function validateBatch(parsed) {
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    parsed = [parsed];
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.some((m) => m === null || typeof m !== 'object')) {
    throw new TransportError('response is not a non-empty array of messages');
  }
  return parsed;
}
