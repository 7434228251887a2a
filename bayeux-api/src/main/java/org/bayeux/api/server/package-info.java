/**
 * The server side of the API: {@link org.bayeux.api.server.BayeuxServer}, its channels and sessions, and the
 * listeners, extensions and security hooks that applications plug in.
 *
 * <p>Every user callback is isolated: an exception thrown by a listener, extension, authorizer or policy is
 * logged, and the server carries on as if the callback had not acted (for a security check: as a refusal).</p>
 */
package org.bayeux.api.server;
