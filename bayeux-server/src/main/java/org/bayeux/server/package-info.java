/**
 * The Bayeux engine: channels, sessions, delivery, security and extensions, with no servlet, no Jetty class and no
 * socket. {@code BayeuxServerImpl} assembles the parts below and implements {@link org.bayeux.server.BayeuxEngine};
 * embedders hold a {@code BayeuxEngine}, transports reach it through the transport SPI
 * ({@code org.bayeux.server.transport}), clusters through the cluster SPI ({@code org.bayeux.server.cluster}). The
 * path of a message through these parts, and the threading rules, are
 * in {@code docs/architecture.md}.
 *
 * <table>
 *   <caption>The engine's parts</caption>
 *   <tr><th>Class</th><th>Job</th></tr>
 *   <tr><td>{@code BayeuxServerImpl}</td>
 *       <td>Assembles the parts once, each with its real collaborators in its constructor (no part holds the
 *       facade); owns the one scheduler thread (held-connect timeouts, lazy flushes, the sweep); implements
 *       {@code BayeuxEngine} by delegating.</td></tr>
 *   <tr><td>{@code MessageProcessor}</td>
 *       <td>The incoming path of a batch: validate, incoming extensions, dispatch, outgoing extensions on the reply,
 *       answer.</td></tr>
 *   <tr><td>{@code MetaHandlers}</td>
 *       <td>The five meta channels and the advice rules.</td></tr>
 *   <tr><td>{@code ChannelCreation}</td>
 *       <td>Where a subscribe or publish creates a channel: the creation limits, the policy, the registry's atomic
 *       creation.</td></tr>
 *   <tr><td>{@code Publisher}</td>
 *       <td>Channel listeners, outgoing extensions, freeze, fan-out; the cluster's way out, and the fan-out of what
 *       comes in.</td></tr>
 *   <tr><td>{@code ClusterSeam}</td>
 *       <td>The engine's side of the cluster SPI: the way out, the way in, membership told once per member, the
 *       session store.</td></tr>
 *   <tr><td>{@code EngineEvents}, {@code TransportNames}</td>
 *       <td>The server-wide session, channel and subscription listeners and the one place that tells them; the
 *       advertised transports.</td></tr>
 *   <tr><td>{@code SessionParts}</td>
 *       <td>What every session works with (configuration, timers, codec, registry, extensions, store): one instance
 *       per engine, so each session keeps one reference.</td></tr>
 *   <tr><td>{@code Deliveries}, {@code ParsedBatch}</td>
 *       <td>The engine's side of {@code OutgoingMessages} (bytes encoded once per message, shared) and
 *       {@code IncomingBatch}.</td></tr>
 *   <tr><td>{@code Security}</td>
 *       <td>The policy, then the authorizers of the channel and its wildcard ancestors.</td></tr>
 *   <tr><td>{@code ExtensionChain}</td>
 *       <td>Extensions in their documented order.</td></tr>
 *   <tr><td>{@code ChannelRegistry}, {@code ServerChannelImpl}</td>
 *       <td>Channels by name, atomic creation with initializers, the walk to wildcard ancestors (linear in the name:
 *       wildcard channels indexed by prefix, looked up by offsets and hashes, no prefix strings), the sweep of unused
 *       channels.</td></tr>
 *   <tr><td>{@code SessionRegistry}, {@code ServerSessionImpl}</td>
 *       <td>Session ids, the session's life, its one lock, its held connect and its expiry; the session is made of
 *       the parts below, each a plain object in a final field.</td></tr>
 *   <tr><td>{@code SessionSettings}, {@code SessionCallbacks}, {@code SessionDurableState}</td>
 *       <td>A session's parts: its settings (each falling back to the configuration), its extensions and listeners,
 *       its subscriptions (with its positions, what a session store keeps).</td></tr>
 *   <tr><td>{@code SessionOutbox}, {@code SessionQueue}</td>
 *       <td>A session's way out: the queue with its overflow policy ({@code maxQueue}, {@code maxQueueBytes},
 *       {@code maxQueuePolicy}, the max-queue listeners), what is due, pushes in flight, positions handed.</td></tr>
 *   <tr><td>{@code SessionAdoptions}, {@code PortableAttributes}</td>
 *       <td>Failover, the adopting side: a message naming an unknown {@code clientId} looked up in a store that
 *       adopts (one look-up per id, bounded in flight and queued), the session rebuilt (binding digest, portable
 *       attributes, {@code ack} numbering), adoption listeners asked, its subscriptions resumed through the ordinary
 *       subscribe path; anything short of exact is {@code 402}.</td></tr>
 *   <tr><td>{@code SessionFailover}</td>
 *       <td>Failover, the owning side, per session and only with a store that adopts: reply numbers without
 *       {@code ack}, the order journaled replies leave in, the hand-over state of a drain.</td></tr>
 *   <tr><td>{@code LocalSessionImpl}, {@code LocalSessionChannel}</td>
 *       <td>In-process clients, taking the same path as remote ones without JSON.</td></tr>
 *   <tr><td>{@code BayeuxService}</td>
 *       <td>A base for services answering on {@code /service/} channels.</td></tr>
 *   <tr><td>{@code internal.Callbacks}</td>
 *       <td>The one wrapper around user code: logs a failure (rate-limited, without data: {@code
 *       internal.RateLimitedLog}) and substitutes a safe answer.</td></tr>
 *   <tr><td>{@code Limits}, {@code Limit}, {@code LimitCounters}</td>
 *       <td>The input limits (channel names, subscriptions, channels, creation rate, batch size), checked before the
 *       work they protect, each refusal counted.</td></tr>
 *   <tr><td>{@code config.BayeuxServerConfig}</td>
 *       <td>The typed, validated configuration and the source of {@code docs/configuration.md}.</td></tr>
 * </table>
 */
package org.bayeux.server;
