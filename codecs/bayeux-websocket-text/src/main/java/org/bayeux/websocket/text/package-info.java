/**
 * Whole text messages over Jetty's core WebSocket API, for both ends of Bayeux over WebSocket (the server's
 * transport and the Java client): frames joined into messages within a size limit and checked as UTF-8, pings
 * answered, reading on demand, and a close handshake that waits for the peer.
 */
package org.bayeux.websocket.text;
