/**
 * Client extensions: {@link org.bayeux.client.ext.AckExtension} (guaranteed delivery with the server's {@code ack}
 * extension) and {@link org.bayeux.client.ext.TimesyncExtension} (the server's clock).
 */
package org.bayeux.client.ext;
