/**
 * The transports of the Java client, on Jetty 12's HTTP and WebSocket clients: {@code long-polling} and
 * {@code websocket}. Applications choose them by name in {@link org.bayeux.client.BayeuxClientConfig}; the classes
 * here are the client's own machinery, public so that Jetty can call them.
 */
package org.bayeux.client.transport;
