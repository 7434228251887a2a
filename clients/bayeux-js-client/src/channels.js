// Channel names: validation and the wildcard patterns a name is matched by.

const SEGMENT = /^[A-Za-z0-9 !#$()+\-.@_{}~]+$/;

/**
 * Tells whether a channel name is valid for the given use.
 *
 * @param {string} name the channel name
 * @param {boolean} [allowWildcard] whether `*` or `**` may end it (subscriptions, listeners)
 * @returns {boolean}
 */
export function isValidChannel(name, allowWildcard = false) {
  if (typeof name !== 'string' || name.length < 2 || name[0] !== '/') {
    return false;
  }
  const segments = name.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const last = i === segments.length - 1;
    if (last && allowWildcard && (segment === '*' || segment === '**')) {
      continue;
    }
    if (!SEGMENT.test(segment)) {
      return false;
    }
  }
  return true;
}

/** @param {string} name @returns {boolean} */
export function isWildcard(name) {
  return name.endsWith('/*') || name.endsWith('/**');
}

/** @param {string} name @returns {boolean} */
export function isMeta(name) {
  return name.startsWith('/meta/');
}

/** @param {string} name @returns {boolean} */
export function isService(name) {
  return name.startsWith('/service/');
}

/**
 * The names a message on `channel` is dispatched to: the channel itself, `*` of its parent, and `**` of every
 * ancestor. Dispatching by these keys costs one map look-up per level instead of a scan of every pattern.
 *
 * @param {string} channel a concrete channel name
 * @returns {string[]}
 */
export function dispatchKeys(channel) {
  const keys = [channel];
  const segments = channel.slice(1).split('/');
  for (let depth = segments.length - 1; depth >= 0; depth--) {
    const prefix = depth === 0 ? '' : '/' + segments.slice(0, depth).join('/');
    if (depth === segments.length - 1) {
      keys.push(prefix + '/*');
    }
    keys.push(prefix + '/**');
  }
  return keys;
}

/**
 * Tells whether a subscription pattern matches a concrete channel name.
 *
 * @param {string} pattern a channel name, possibly ending in `*` or `**`
 * @param {string} channel a concrete channel name
 * @returns {boolean}
 */
export function channelMatches(pattern, channel) {
  return dispatchKeys(channel).includes(pattern);
}
