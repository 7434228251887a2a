/**
 * The Bayeux endpoint on Jetty 12's core API, with no servlet: a {@code Handler} serving HTTP and WebSocket, the
 * WebSocket transport on Jetty's core WebSocket server, and {@link org.bayeux.transport.jetty.BayeuxEndpoint},
 * which mounts the endpoint in a user's own Jetty server.
 */
package org.bayeux.transport.jetty;
