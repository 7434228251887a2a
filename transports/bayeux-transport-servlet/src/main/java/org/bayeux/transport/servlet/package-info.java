/**
 * The Bayeux endpoint for any Jakarta Servlet 6 container: an asynchronous servlet with non-blocking I/O for the
 * HTTP transports, and, where the container offers Jakarta WebSocket 2.1, a WebSocket endpoint over the shared
 * {@link org.bayeux.transport.websocket.SocketCarrier}.
 */
package org.bayeux.transport.servlet;
