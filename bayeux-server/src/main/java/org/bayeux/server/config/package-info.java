/**
 * The engine's configuration: an immutable, validated {@link org.bayeux.server.config.BayeuxServerConfig} whose
 * keys are {@link org.bayeux.server.config.ConfigOption}s, each of which parses, validates and documents itself
 * (the source of {@code docs/configuration.md}); the transports' configuration is built the same way.
 */
package org.bayeux.server.config;
