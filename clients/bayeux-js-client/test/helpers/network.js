import { Inbox } from './wait.js';

// Network trouble on demand, wrapped around Node's own fetch and WebSocket: a cable that can be pulled, responses
// lost on their way back, and WebSockets that never get through.

/**
 * A fetch and a WebSocket class whose traffic stops when `cut()` is called: requests in flight and new ones fail,
 * open sockets close and new ones never open.
 */
export class Cable {
  constructor() {
    this.isCut = false;
    /** @type {Set<AbortController>} */
    this.requests = new Set();
    /** @type {Set<WebSocket>} */
    this.sockets = new Set();
    /** Every WebSocket frame sent, as {text}. */
    this.frames = new Inbox();
    const cable = this;
    this.fetch = async (url, init = {}) => {
      if (cable.isCut) {
        throw new TypeError('fetch failed (cable cut)');
      }
      const controller = new AbortController();
      init.signal?.addEventListener('abort', () => controller.abort(init.signal.reason));
      cable.requests.add(controller);
      try {
        const response = await fetch(url, { ...init, signal: controller.signal });
        const text = await response.text();
        if (cable.isCut) {
          throw new TypeError('fetch failed (cable cut)');
        }
        return new Response(text, { status: response.status, headers: response.headers });
      } finally {
        cable.requests.delete(controller);
      }
    };
    this.WebSocket = class extends WebSocket {
      constructor(url, protocols) {
        super(url, protocols);
        cable.sockets.add(this);
        if (cable.isCut) {
          this.close(4000);
        }
      }

      send(data) {
        super.send(data);
        cable.frames.push({ text: String(data) });
      }
    };
  }

  cut() {
    this.isCut = true;
    for (const request of this.requests) {
      request.abort(new TypeError('cable cut'));
    }
    for (const socket of this.sockets) {
      socket.close(4000);
    }
  }
}

/**
 * A fetch that loses the first response whose body matches `lose`: the server sent it, the client never gets it.
 *
 * @param {(body: string) => boolean} lose
 */
export function lossyFetch(lose) {
  let lost = false;
  const wrapped = async (url, init) => {
    const response = await fetch(url, init);
    const text = await response.text();
    if (!lost && lose(text)) {
      lost = true;
      wrapped.lost = text;
      throw new TypeError('fetch failed (response lost)');
    }
    return new Response(text, { status: response.status, headers: response.headers });
  };
  wrapped.lost = '';
  return wrapped;
}

/**
 * A WebSocket class that loses the first frame matching `lose`, and the connection with it.
 *
 * @param {(frame: string) => boolean} lose
 */
export function lossyWebSocket(lose) {
  const state = { lost: '' };
  return class extends WebSocket {
    static state = state;

    set onmessage(handler) {
      super.onmessage = handler && ((event) => {
        if (!state.lost && typeof event.data === 'string' && lose(event.data)) {
          state.lost = event.data;
          this.close(4000);
          return;
        }
        handler(event);
      });
    }

    get onmessage() {
      return super.onmessage;
    }
  };
}

/** A WebSocket that never gets through: it closes before opening, as behind a proxy that refuses upgrades. */
export class BlockedWebSocket {
  static attempts = 0;

  constructor(url) {
    BlockedWebSocket.attempts++;
    this.url = url;
    this.readyState = 0;
    queueMicrotask(() => {
      this.readyState = 3;
      this.onerror?.({ type: 'error' });
      this.onclose?.({ code: 1006, reason: '' });
    });
  }

  send() {
    throw new Error('not open');
  }

  close() {
    this.readyState = 3;
  }
}

/** A WebSocket that opens, then closes on the first frame sent, as behind a proxy that kills upgraded connections. */
export class SilentWebSocket {
  static attempts = 0;

  constructor(url) {
    SilentWebSocket.attempts++;
    this.url = url;
    this.readyState = 0;
    queueMicrotask(() => {
      this.readyState = 1;
      this.onopen?.({ type: 'open' });
    });
  }

  send() {
    queueMicrotask(() => {
      this.readyState = 3;
      this.onclose?.({ code: 1006, reason: '' });
    });
  }

  close() {
    this.readyState = 3;
  }
}

/** A Storage in memory, standing for a tab's sessionStorage across a reload. */
export class MemoryStorage {
  constructor() {
    this.map = new Map();
  }

  getItem(key) {
    return this.map.has(key) ? this.map.get(key) : null;
  }

  setItem(key, value) {
    this.map.set(key, String(value));
  }

  removeItem(key) {
    this.map.delete(key);
  }
}
