/**
 * Small helpers of the engine, public because its other packages and the transports use them too: calling user code in
 * isolation ({@code Callbacks}), logs that a flood of one failure cannot fill ({@code RateLimitedLog}), and the
 * attribute map and callback list that cost an idle session almost nothing until used. Not an API: may change without
 * notice.
 */
package org.bayeux.server.internal;
