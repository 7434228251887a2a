/**
 * The servers a load run measures, each with the statistics service the load client asks for at the end of a run:
 * ours ({@code bin/bayeux load-server}), the unmodified CometD 8 server ({@code --cometd}), and the bare Jetty
 * fan-out that is not a Bayeux server, the floor the others are compared with ({@code --floor}).
 */
package org.bayeux.load.server;
