/**
 * The server side of the demo chat of {@code bin/bayeux demo}: names given at the handshake, rooms and their member
 * lists, and private messages, as a service on the engine's public API.
 */
package org.bayeux.demo.chat;
