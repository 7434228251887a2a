/**
 * The Java Bayeux client: {@link org.bayeux.client.BayeuxClient}, its configuration
 * ({@link org.bayeux.client.BayeuxClientConfig}) and the resources many clients can share
 * ({@link org.bayeux.client.ClientResources}). See {@code docs/java-client.md}.
 */
package org.bayeux.client;
