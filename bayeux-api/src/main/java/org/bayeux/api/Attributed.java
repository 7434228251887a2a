package org.bayeux.api;

import java.util.Set;

/**
 * Something that carries named values for the application: a session, seen from either end, or a server channel.
 * The values are the application's; the library neither reads nor sends them.
 */
public interface Attributed {
    /**
     * @param name the attribute name
     * @return the attribute value, or null
     */
    Object getAttribute(String name);

    /**
     * @param name the attribute name
     * @param value the attribute value; null removes the attribute
     */
    void setAttribute(String name, Object value);

    /**
     * @param name the attribute name
     * @return the removed value, or null
     */
    Object removeAttribute(String name);

    /** @return the names of the attributes set now */
    Set<String> getAttributeNames();
}
