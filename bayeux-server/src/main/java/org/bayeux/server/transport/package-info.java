/**
 * The transport SPI: the seam between the engine and whatever carries messages to clients.
 *
 * <p>A transport holds a {@link org.bayeux.server.transport.TransportEngine}: it
 * {@link org.bayeux.server.transport.TransportEngine#parse(String) parses} what arrives into an opaque
 * {@link org.bayeux.server.transport.IncomingBatch}, {@link org.bayeux.server.transport.TransportEngine#handle handles}
 * it on the {@link org.bayeux.server.transport.Carrier} it arrived on, and reports a carrier that died. The engine
 * answers through {@link org.bayeux.server.transport.Carrier#send}, with
 * {@link org.bayeux.server.transport.OutgoingMessages} whose bytes it encoded once. Transports never see the engine's
 * classes, and never encode.</p>
 *
 * <p>The core a transport calls for every message is {@code TransportEngine}; what the transports of an engine share
 * (configuration, timer, shared parts, advertised names) is its
 * {@link org.bayeux.server.transport.TransportEngine#services() services}, with the
 * {@link org.bayeux.server.transport.ClientBindings bindings} of sessions to their browser and carrier. A carrier
 * declares what it can do in a {@link org.bayeux.server.transport.CarrierCapabilities} record and implements, if it
 * needs them, the {@link org.bayeux.server.transport.FlowControl} and {@link org.bayeux.server.transport.HoldPolicy}
 * facets.</p>
 */
package org.bayeux.server.transport;
