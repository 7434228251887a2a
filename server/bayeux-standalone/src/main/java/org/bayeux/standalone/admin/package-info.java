/**
 * The standalone server's admin page: a page at {@code /admin} (only with {@code admin.token}) whose sessions prove
 * the token at handshake and receive a statistics snapshot once a second on {@code /bayeux/admin/stats}, a channel
 * no other session may subscribe to or publish on (docs/operations.md, "The admin page").
 */
package org.bayeux.standalone.admin;
