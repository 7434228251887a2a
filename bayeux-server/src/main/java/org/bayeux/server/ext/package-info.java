/**
 * Server extensions for the optional parts of the protocol: {@code ack} (guaranteed server-to-client delivery),
 * {@code timesync} (clock offset estimation) and {@code timestamp} (time stamps on deliveries). Each is added with
 * {@link org.bayeux.api.server.BayeuxServer#addExtension(org.bayeux.api.server.ServerExtension)}; see
 * {@code docs/extensions.md}.
 */
package org.bayeux.server.ext;
