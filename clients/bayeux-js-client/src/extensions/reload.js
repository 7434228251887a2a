// reload: a page that reloads (or navigates within the site) keeps its session instead of starting a new one.
//
// On `pagehide` the handshake reply of the live session is saved in sessionStorage. The next page's handshake is
// answered from it locally (marked `ext.reload: true`), and its first connect, with the old clientId, tells the
// server the session is back. If the server has expired it meanwhile, it answers 402 and the client handshakes
// for real. Messages the server queued during the reload are delivered to the new page.

const DEFAULT_KEY = 'bayeux.reload';

export class ReloadExtension {
  /**
   * @param {object} [options]
   * @param {string} [options.name] the storage key (one per client, if a page has several)
   * @param {Storage | {getItem(k: string): string | null, setItem(k: string, v: string): void, removeItem(k: string): void}} [options.storage]
   *   where to keep the state; sessionStorage by default
   * @param {number} [options.maxAge] milliseconds after which a saved session is not even tried
   */
  constructor(options = {}) {
    /** @private */
    this.key = options.name ?? DEFAULT_KEY;
    /** @private */
    this.storage = options.storage;
    /** @private */
    this.maxAge = options.maxAge ?? 60000;
    /** @private @type {any} */
    this.client = null;
    /** @private @type {object | null} the handshake reply of the session in use */
    this.handshakeReply = null;
    /** @private */
    this.onPageHide = () => this.save();
  }

  /** @param {string} name @param {any} client */
  registered(name, client) {
    this.client = client;
    if (typeof window !== 'undefined' && typeof window.addEventListener === 'function') {
      window.addEventListener('pagehide', this.onPageHide);
    }
  }

  unregistered() {
    if (typeof window !== 'undefined' && typeof window.removeEventListener === 'function') {
      window.removeEventListener('pagehide', this.onPageHide);
    }
    this.client = null;
  }

  /** @param {any} message */
  incoming(message) {
    if (message.channel === '/meta/handshake' && message.successful === true) {
      const { reestablish, ...reply } = message; // eslint-disable-line no-unused-vars
      this.handshakeReply = reply;
    } else if (message.channel === '/meta/disconnect' && message.successful === true) {
      this.handshakeReply = null;
      this.forget();
    }
    return message;
  }

  /**
   * Saves the live session for the next page. Called on `pagehide`; call it yourself before navigating in ways that
   * do not fire it.
   *
   * @returns {boolean} whether a session was saved
   */
  save() {
    const client = this.client;
    const storage = this.store();
    const reply = /** @type {any} */ (this.handshakeReply);
    if (!client || !storage || !reply || client.getClientId() !== reply.clientId || client.isDisconnected()) {
      return false;
    }
    try {
      storage.setItem(this.key, JSON.stringify({ url: client.getURL(), savedAt: Date.now(), reply }));
      return true;
    } catch {
      return false; // storage full or forbidden: the next page handshakes normally
    }
  }

  /**
   * Answers the handshake from the saved session, once.
   *
   * @param {any} handshake
   * @returns {object | null}
   */
  replayHandshake(handshake) { // eslint-disable-line no-unused-vars
    const storage = this.store();
    if (!storage || !this.client) {
      return null;
    }
    let saved;
    try {
      saved = JSON.parse(storage.getItem(this.key) ?? 'null');
    } catch {
      saved = null;
    }
    this.forget();
    if (!saved || saved.url !== this.client.getURL() || typeof saved.savedAt !== 'number'
        || Date.now() - saved.savedAt > this.maxAge || typeof saved.reply?.clientId !== 'string') {
      return null;
    }
    return { ...saved.reply, ext: { ...saved.reply.ext, reload: true } };
  }

  /** @private */
  forget() {
    try {
      this.store()?.removeItem(this.key);
    } catch {
      // Nothing to forget where storage is forbidden.
    }
  }

  /** @private */
  store() {
    if (this.storage) {
      return this.storage;
    }
    try {
      return globalThis.sessionStorage ?? null;
    } catch {
      return null; // access denied (sandboxed frames, some privacy settings)
    }
  }
}
