// Timers that keep their pace in background tabs.
//
// Browsers slow down timers of hidden pages (Chrome to once a minute after a few minutes), which would stretch a
// reconnection back-off or a connect's deadline far beyond what the protocol expects. Timers of a dedicated worker
// are not throttled that way, so in a browser the client asks a tiny worker to time its waits. Where workers are
// missing or forbidden (Node.js, a Content-Security-Policy without blob: workers) the global timers are used.

const WORKER_SOURCE = `
const timers = new Map();
onmessage = (event) => {
  const { op, id, delay } = event.data;
  if (op === 'set') {
    timers.set(id, setTimeout(() => { timers.delete(id); postMessage(id); }, delay));
  } else {
    clearTimeout(timers.get(id));
    timers.delete(id);
  }
};`;

/**
 * @typedef {object} Scheduler
 * @property {(callback: () => void, delay: number) => number} setTimeout
 * @property {(id: number | undefined) => void} clearTimeout
 * @property {() => void} close
 * @property {string} kind "worker" or "global"
 */

/** @returns {Scheduler} timers on the global object */
export function globalScheduler() {
  return {
    kind: 'global',
    setTimeout: (callback, delay) => /** @type {any} */ (globalThis.setTimeout(callback, Math.max(0, delay))),
    clearTimeout: (id) => globalThis.clearTimeout(id),
    close: () => {},
  };
}

/**
 * Creates the scheduler for one client.
 *
 * @param {boolean} useWorker whether to try a worker first
 * @param {(text: string, error?: unknown) => void} warn where to report a worker that could not start
 * @returns {Scheduler}
 */
export function createScheduler(useWorker, warn) {
  const canUseWorker = useWorker && typeof Worker === 'function' && typeof Blob === 'function'
    && typeof URL === 'function' && typeof URL.createObjectURL === 'function' && typeof document !== 'undefined';
  if (!canUseWorker) {
    return globalScheduler();
  }
  let worker;
  let url;
  try {
    url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
    worker = new Worker(url);
  } catch (error) {
    if (url) {
      URL.revokeObjectURL(url);
    }
    warn('Timer worker unavailable; using page timers, which browsers slow down in background tabs', error);
    return globalScheduler();
  }
  const fallback = globalScheduler();
  const callbacks = new Map();
  let nextId = 1;
  let broken = false;
  worker.onmessage = (event) => {
    const callback = callbacks.get(event.data);
    if (callback) {
      callbacks.delete(event.data);
      callback();
    }
  };
  worker.onerror = (event) => {
    // A worker blocked after construction (CSP reports it asynchronously): re-arm the waiting timers on the page.
    event.preventDefault?.();
    if (broken) {
      return;
    }
    broken = true;
    warn('Timer worker failed; using page timers');
    for (const [, callback] of callbacks) {
      fallback.setTimeout(callback, 0);
    }
    callbacks.clear();
  };
  return {
    kind: 'worker',
    setTimeout(callback, delay) {
      if (broken) {
        return fallback.setTimeout(callback, delay);
      }
      const id = nextId++;
      callbacks.set(id, callback);
      worker.postMessage({ op: 'set', id, delay: Math.max(0, delay) });
      return id;
    },
    clearTimeout(id) {
      if (id === undefined) {
        return;
      }
      if (broken) {
        fallback.clearTimeout(id);
        return;
      }
      if (callbacks.delete(id)) {
        worker.postMessage({ op: 'clear', id });
      }
    },
    close() {
      callbacks.clear();
      worker.terminate();
      URL.revokeObjectURL(url);
    },
  };
}
