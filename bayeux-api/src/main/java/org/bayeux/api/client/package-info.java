/**
 * The client side of the API, shared by the remote Java client and by server-side local sessions.
 */
package org.bayeux.api.client;
