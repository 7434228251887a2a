/**
 * The transport SPI: how a transport hands incoming batches to the engine and how the engine hands a session's
 * messages back to whatever carries it.
 */
package org.bayeux.server.transport;
