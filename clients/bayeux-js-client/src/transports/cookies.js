// Cookies for HTTP transports outside browsers.
//
// Browsers keep cookies themselves. Node's fetch keeps none, yet some servers tie a session to a cookie they set
// on the handshake: CometD's server, by default, refuses every later message of a session that does not bring back
// its BAYEUX_BROWSER cookie. So outside browsers each client keeps the cookies its server sets, per origin, as a
// browser would for one tab, and sends them back. Paths, domains and flags are not interpreted: a client talks
// to one endpoint.

const MAX_COOKIES = 50;

export class CookieJar {
  constructor() {
    /** origin → (name → value) @type {Map<string, Map<string, string>>} */
    this.byOrigin = new Map();
  }

  /** @returns {boolean} whether this environment needs a jar of ours */
  static needed() {
    return typeof document === 'undefined';
  }

  /**
   * @param {string} url the request's URL
   * @param {Headers} headers the response's headers
   */
  store(url, headers) {
    const lines = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [];
    if (lines.length === 0) {
      return;
    }
    const origin = new URL(url).origin;
    let cookies = this.byOrigin.get(origin);
    if (!cookies) {
      cookies = new Map();
      this.byOrigin.set(origin, cookies);
    }
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';');
      const equals = pair.indexOf('=');
      if (equals <= 0) {
        continue;
      }
      const name = pair.slice(0, equals).trim();
      const value = pair.slice(equals + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key, val = ''] = attribute.split('=').map((part) => part.trim().toLowerCase());
        return (key === 'max-age' && Number(val) <= 0) || (key === 'expires' && Date.parse(val) < Date.now());
      });
      cookies.delete(name);
      if (!expired && cookies.size < MAX_COOKIES) {
        cookies.set(name, value);
      }
    }
  }

  /**
   * @param {string} url
   * @returns {Record<string, string>} a Cookie header for a request to the URL, if there are cookies
   */
  headersFor(url) {
    const cookies = this.byOrigin.get(new URL(url).origin);
    if (!cookies || cookies.size === 0) {
      return {};
    }
    return { Cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }
}
