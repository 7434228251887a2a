package org.bayeux.api.support;

import java.util.Set;

import org.bayeux.api.Attributed;

/**
 * The four attribute methods of {@link Attributed}, over one {@link Attributes} holder that the implementing class
 * keeps: the server's sessions and channels and the Java client implement them once, here.
 */
public interface AttributesMixin extends Attributed {
    /** @return the holder of this object's attributes, the same one on every call */
    Attributes attributes();

    @Override
    default Object getAttribute(String name) {
        return attributes().get(name);
    }

    @Override
    default void setAttribute(String name, Object value) {
        attributes().set(name, value);
    }

    @Override
    default Object removeAttribute(String name) {
        return attributes().remove(name);
    }

    @Override
    default Set<String> getAttributeNames() {
        return attributes().names();
    }
}
