/**
 * A real, unmodified CometD 8 server on embedded Jetty 12 with an echo service: the peer our clients are tested
 * against and the server the load tool compares ours with. A test and benchmark tool, never a dependency of ours
 * at run time.
 */
package org.bayeux.reference.cometd;
