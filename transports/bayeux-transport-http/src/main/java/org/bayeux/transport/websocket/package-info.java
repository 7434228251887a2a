/**
 * The container-neutral part of the {@code websocket} transport: the carrier of one socket
 * ({@link org.bayeux.transport.websocket.SocketCarrier}), which a server adapter (Jetty core or Jakarta WebSocket)
 * feeds through {@link org.bayeux.transport.websocket.SocketPeer}; outgoing messages cut into frames and written in
 * order without blocking; and the lanes on which pushes run.
 */
package org.bayeux.transport.websocket;
