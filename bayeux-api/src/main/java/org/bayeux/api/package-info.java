/**
 * The vocabulary shared by the Bayeux server, its clients and user code: messages, channel names, sessions and
 * asynchronous completion.
 */
package org.bayeux.api;
