/**
 * Oort: nodes of this server joined in a full WebSocket mesh, on the engine's cluster SPI
 * ({@link org.bayeux.server.cluster}). {@link org.bayeux.oort.Oort} is the node, configured by
 * {@link org.bayeux.oort.OortConfig}; links between nodes are our Java client, and each join proves the shared secret
 * afresh.
 */
package org.bayeux.oort;
