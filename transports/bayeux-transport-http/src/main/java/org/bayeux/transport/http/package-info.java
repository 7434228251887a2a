/**
 * What every HTTP deployment of the engine shares, over the container-neutral
 * {@link org.bayeux.transport.http.HttpExchange}: routing to long-polling, callback-polling or a CORS preflight,
 * the carrier of one HTTP request, CORS, the browser cookie and its long-poll count, the caps on sessions per
 * cookie and per address, and the transports' configuration.
 */
package org.bayeux.transport.http;
