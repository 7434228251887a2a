// Type declarations of bayeux-js-client. Written by hand next to src/; `npm run build` checks them with
// `tsc --noEmit` (tsconfig.json): against test/types/usage.ts (how the guide uses them), and against the sources,
// which it checks as JavaScript with their JSDoc (checkJs), in test/types/api.ts (the same exports, and each class
// the same public members, taking the same numbers of arguments; members marked `@private` in src/ are internals).
// Unit tests (test/unit/package.test.js) check the exports and the classes' methods at run time.

/** The state of a client, as returned by `getStatus()`. */
export type StatusName = 'disconnected' | 'handshaking' | 'connected' | 'unconnected' | 'rehandshaking' | 'disconnecting';

export declare const Status: Readonly<{
  DISCONNECTED: 'disconnected';
  HANDSHAKING: 'handshaking';
  CONNECTED: 'connected';
  UNCONNECTED: 'unconnected';
  REHANDSHAKING: 'rehandshaking';
  DISCONNECTING: 'disconnecting';
}>;

export type TransportName = 'websocket' | 'long-polling' | 'callback-polling';

/** Server advice (Bayeux `advice` field). */
export interface Advice {
  reconnect?: 'retry' | 'handshake' | 'none';
  interval?: number;
  timeout?: number;
  maxInterval?: number;
  'multiple-clients'?: boolean;
  [key: string]: unknown;
}

/** A Bayeux message, as received or as sent. */
export interface Message {
  channel: string;
  id?: string;
  clientId?: string;
  data?: any;
  successful?: boolean;
  error?: string;
  advice?: Advice;
  ext?: Record<string, any>;
  subscription?: string | string[];
  connectionType?: string;
  supportedConnectionTypes?: string[];
  version?: string;
  minimumVersion?: string;
  timestamp?: string;
  [key: string]: unknown;
}

/** Why a request failed without a reply from the server (the network, a timeout, a disconnect). */
export interface Failure {
  reason: string;
  transport: TransportName | null;
  httpCode?: number;
  exception?: TransportError;
}

/**
 * A reply to a request: from the server, or made by the client when the request failed locally (then `failure`
 * says why). Promises of the API resolve with replies and never reject: check `successful`.
 */
export interface Reply extends Message {
  successful: boolean;
  failure?: Failure;
  /** On `/meta/handshake` replies: true when the client handshook again by itself (after losing its session). */
  reestablish?: boolean;
  /** On replies passed to `/meta/unsuccessful` and `/meta/publish` listeners: the channel of the request. */
  originalChannel?: string;
}

/** Fields added to an outgoing message (typically `ext`). */
export type MessageProps = Partial<Message>;

export type MessageListener = (message: Message) => void;
export type ReplyCallback = (reply: Reply) => void;

/** What a WebSocket constructor must offer: the browser's, Node's, or the `ws` package's. */
export interface WebSocketConstructor {
  new (url: string): WebSocket;
}

export interface ClientConfig {
  /** The Bayeux endpoint, e.g. `https://example.com/bayeux` (relative URLs work in browsers). */
  url?: string;
  /** Transports to use, in order of preference. Default: websocket, long-polling, callback-polling. */
  transports?: TransportName[];
  /** Milliseconds a request may take beyond what the server holds it for. Default 10000. */
  maxNetworkDelay?: number;
  /** The back-off after the first failure, doubling with each further one; half of it is random. Default 1000. */
  backoffIncrement?: number;
  /** The longest back-off. Default 60000. */
  maxBackoff?: number;
  /** Whether subscriptions are sent again after an automatic re-handshake. Default true. */
  autoResubscribe?: boolean;
  /**
   * Whether the client registers a RecoveryExtension (named "recovery"): against a server that offers recovery, a
   * subscribe carries the last position received on its channel, and the server delivers what was missed. Default
   * true.
   */
  recovery?: boolean;
  /**
   * The most channels whose position the recovery extension keeps, those received through a wildcard included; past
   * it the least recently used channel's is forgotten (its next subscribe sends none). Default 1000.
   */
  recoveryMaxChannels?: number;
  /** The most requests waiting for their reply (sent or not); beyond it new ones fail at once. Default 1000. */
  maxPendingMessages?: number;
  /** callback-polling splits batches whose URL would be longer. Default 2000. */
  maxURLLength?: number;
  /** Headers added to HTTP requests (long-polling; callback-polling outside browsers). */
  requestHeaders?: Record<string, string>;
  /** Whether browsers time the client's waits in a worker, so that background tabs keep their pace. Default true. */
  useWorkerTimers?: boolean;
  /** Default 'warn'. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'off';
  /** Where log lines go. Default: the console. */
  logger?: Partial<Pick<Console, 'debug' | 'info' | 'warn' | 'error' | 'log'>>;
  /** Called when a listener, callback or extension throws; the client carries on either way. */
  onListenerException?: (this: BayeuxClient, error: unknown, context: CallbackContext) => void;
  /** The WebSocket class. Default: the global one (browsers, Node 22; Node 20 with --experimental-websocket). */
  WebSocket?: WebSocketConstructor;
  /** The WebSocket URL, when it differs from `url` with its scheme changed to ws: or wss:. */
  webSocketURL?: string;
  /** The fetch function. Default: the global one. */
  fetch?: typeof fetch;
  /** The source of randomness for back-off jitter. Default Math.random. */
  random?: () => number;
}

/** What a user callback that threw was for. */
export declare class CallbackContext {
  readonly kind: 'subscription' | 'listener' | 'status' | 'callback' | 'extension';
  readonly channel?: string;
  readonly message?: Message;
}

/** A failed exchange with the server. */
export declare class TransportError extends Error {
  constructor(reason: string, details?: { httpCode?: number; closeCode?: number; cause?: unknown });
  readonly reason: string;
  readonly httpCode?: number;
  readonly closeCode?: number;
}

/** A client extension: every hook is optional. Returning null drops the message; undefined keeps it as it is. */
export interface Extension {
  outgoing?(message: Message): Message | null | undefined | void;
  incoming?(message: Message): Message | null | undefined | void;
  registered?(name: string, client: BayeuxClient): void;
  unregistered?(): void;
  /** Answers a handshake locally instead of sending it (how the reload extension resumes a session). */
  replayHandshake?(handshake: Message): Message | null | undefined;
}

export declare class Subscription {
  readonly client: BayeuxClient;
  readonly channel: string;
  readonly listener: MessageListener;
  /** Resolves with the subscribe reply. */
  ready: Promise<Reply>;
  unsubscribe(props?: MessageProps | ReplyCallback, callback?: ReplyCallback): Promise<Reply>;
}

export declare class ListenerHandle {
  readonly channel: string;
  readonly listener: MessageListener;
}

export declare class BayeuxClient {
  /** @param config the endpoint URL, or a configuration */
  constructor(config?: string | ClientConfig);

  configure(config: string | ClientConfig): this;
  /** `configure(config)` then `handshake(props)`. */
  init(config: string | ClientConfig, props?: MessageProps): Promise<Reply>;

  /**
   * Starts a session; the client then connects and stays connected (reconnecting, re-handshaking and
   * re-subscribing as needed) until `disconnect()` or advice `reconnect:"none"`. Resolves with the first handshake
   * reply, successful or not; later attempts are seen by `/meta/handshake` listeners.
   * @throws Error if the client is not disconnected, or has no URL
   */
  handshake(props?: MessageProps | ReplyCallback, callback?: ReplyCallback): Promise<Reply>;
  /** Ends the session; subscriptions are forgotten, listeners stay. */
  disconnect(props?: MessageProps | ReplyCallback, callback?: ReplyCallback): Promise<Reply>;

  /** Subscribes; the listener is active at once, and removed if the server refuses. */
  subscribe(channel: string, listener: MessageListener, props?: MessageProps | ReplyCallback,
    callback?: ReplyCallback): Subscription;
  unsubscribe(subscription: Subscription, props?: MessageProps | ReplyCallback, callback?: ReplyCallback): Promise<Reply>;
  /** Forgets every subscription locally, sending nothing. */
  clearSubscriptions(): void;

  publish(channel: string, data: unknown, props?: MessageProps | ReplyCallback, callback?: ReplyCallback): Promise<Reply>;
  /** Publishes bytes as Z85 text; needs the BinaryExtension on both ends. */
  publishBinary(channel: string, bytes: ArrayBuffer | ArrayBufferView | number[], last?: boolean, meta?: unknown,
    props?: MessageProps, callback?: ReplyCallback): Promise<Reply>;
  /**
   * Calls a service: `target` is a `/service/...` channel or a name relative to `/service/`. Resolves with the
   * service's answer, or a failed reply (error `406::timeout`) after `timeout` ms (default `maxNetworkDelay`).
   */
  remoteCall(target: string, data: unknown, timeout?: number | MessageProps | ReplyCallback,
    props?: MessageProps | ReplyCallback, callback?: ReplyCallback): Promise<Reply>;

  startBatch(): void;
  endBatch(): void;
  /** Runs `fn` in a batch: the messages it sends leave together. */
  batch<T>(fn: () => T): T;

  /** Listens without subscribing: `/meta/*` events, `/meta/unsuccessful`, and messages sent to this client. */
  addListener(channel: string, listener: MessageListener): ListenerHandle;
  removeListener(handle: ListenerHandle): boolean;
  clearListeners(): void;
  /** Called on every status change; returns a function that removes the listener. */
  addStatusListener(listener: (status: StatusName, previous: StatusName) => void): () => void;

  registerExtension(name: string, extension: Extension): boolean;
  unregisterExtension(name: string): boolean;
  getExtension(name: string): Extension | undefined;

  /** Processes a message as if it came from the server (for custom transports and extensions). */
  receive(message: Message): void;

  getStatus(): StatusName;
  isDisconnected(): boolean;
  getClientId(): string | null;
  getTransport(): TransportName | null;
  getURL(): string;
  getAdvice(): Advice;
  getConfiguration(): Required<Pick<ClientConfig, 'url' | 'transports' | 'maxNetworkDelay'>> & ClientConfig;
}

/** A message's position in its channel: `ext.position` of a delivered message. */
export interface Position {
  offset: number;
  epoch: string;
}

/**
 * Recovery of missed messages on subscribe (needs a server that offers it, such as one on a Redis backplane);
 * registered by the client itself unless the `recovery` option is false.
 */
export declare class RecoveryExtension implements Extension {
  /**
   * The client makes its own with a host, which also recovers gaps in offsets while the session lives; one made
   * without a host only keeps and sends positions.
   */
  constructor(host?: RecoveryHost | null, options?: { maxHeld?: number; maxChannels?: number });
  /** Whether the last successful handshake reply offered recovery. */
  readonly offered: boolean;
  /** The position of the last message let through on a channel (or the server's, after a failed recovery). */
  position(channel: string): Position | undefined;
  /** The outcome of the last recovery of a channel: a subscribe that sent a position, or a gap. */
  recovered(channel: string): boolean | undefined;
  /** Gaps seen, filled and given up (their messages never reached the application), and duplicates dropped. */
  stats(): { gapsDetected: number; gapsRecovered: number; gapsLost: number; duplicatesDropped: number };
  /** How many channels' positions are kept now (at most maxChannels, 1000 by default). */
  channels(): number;
  /** How many channels' positions were forgotten to stay within maxChannels. */
  channelsForgotten(): number;
  outgoing(message: Message): Message;
  incoming(message: Message): Message;
}

/** What a RecoveryExtension needs of its client to recover gaps; the client gives one to its own. */
export interface RecoveryHost {
  /** Sends a /meta/subscribe to the channel; `onFailure` gets a failed reply the client made itself. */
  subscribe(channel: string, onFailure: (reply: Message) => void): void;
  /** Lets held messages through, in order, after the message being handled. */
  release(messages: Message[]): void;
  setTimeout(callback: () => void, delay: number): unknown;
  clearTimeout(handle: unknown): void;
  /** The longest a gap is held open, in milliseconds. */
  timeout(): number;
  log(level: string, ...args: unknown[]): void;
}

/** Guaranteed, ordered delivery from the server (needs the server's ack extension). */
export declare class AckExtension implements Extension {
  /** Whether the server agreed in the last handshake. */
  readonly enabled: boolean;
  outgoing(message: Message): Message;
  incoming(message: Message): Message;
}

/** Measures the offset between this clock and the server's (needs the server's timesync extension). */
export declare class TimeSyncExtension implements Extension {
  constructor(options?: { maxSamples?: number });
  outgoing(message: Message): Message;
  incoming(message: Message): Message;
  /** Milliseconds to add to this clock to get the server's. */
  getTimeOffset(): number;
  /** The estimated one-way network delay, in milliseconds. */
  getNetworkLag(): number;
  /** The server's clock now, estimated, in epoch milliseconds. */
  getServerTime(): number;
}

/** Adds a `timestamp` field (HTTP date format) to every outgoing message. */
export declare class TimestampExtension implements Extension {
  outgoing(message: Message): Message;
}

/** Bytes as Z85 text in `data.data` of messages carrying `ext.binary`; received as ArrayBuffer. */
export declare class BinaryExtension implements Extension {
  outgoing(message: Message): Message;
  incoming(message: Message): Message;
}

/** Something with the sessionStorage methods the reload extension uses. */
export interface ReloadStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Keeps the session across a page reload (saved on `pagehide`, resumed by the next page's handshake). */
export declare class ReloadExtension implements Extension {
  constructor(options?: { name?: string; storage?: ReloadStorage; maxAge?: number });
  /** Saves the live session now; returns whether one was saved. */
  save(): boolean;
  registered(name: string, client: BayeuxClient): void;
  unregistered(): void;
  incoming(message: Message): Message;
  replayHandshake(handshake: Message): Message | null;
}

/** The delay before retry number `failures` (exponential, capped, half random). */
export declare function backoffDelay(failures: number, increment: number, max: number, random?: () => number): number;
export declare function z85Encode(bytes: ArrayBuffer | ArrayBufferView | number[]): string;
export declare function z85Decode(text: string): ArrayBuffer;
/** Whether a channel name is valid; `allowWildcard` for subscriptions and listeners. */
export declare function isValidChannel(name: string, allowWildcard?: boolean): boolean;
/** Whether a pattern (possibly ending in `*` or `**`) matches a channel name. */
export declare function channelMatches(pattern: string, channel: string): boolean;
