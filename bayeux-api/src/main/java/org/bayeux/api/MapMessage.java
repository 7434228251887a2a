package org.bayeux.api;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * A message backed by a {@link HashMap}: the plain mutable message used by clients, codecs and tests.
 */
public class MapMessage extends HashMap<String, Object> implements Message.Mutable {
    private static final long serialVersionUID = 1L;

    /** Creates an empty message. */
    public MapMessage() {
        super(16);
    }

    /**
     * Creates a message holding a copy of the given fields (a shallow copy).
     *
     * @param fields the fields to copy
     */
    public MapMessage(Map<String, Object> fields) {
        super(fields);
    }

    /**
     * Creates a message on a channel.
     *
     * @param channel the channel name
     * @return a new message with only its channel set
     */
    public static MapMessage on(String channel) {
        MapMessage message = new MapMessage();
        message.setChannel(channel);
        return message;
    }

    /**
     * Returns a view of a message that refuses every change. Nested objects are shared, not copied: the view
     * protects the message's own fields, and callers must treat nested values as read-only too.
     *
     * @param message the message to view
     * @return a read-only view backed by {@code message}
     */
    public static Message readOnly(Message message) {
        if (message instanceof ReadOnly) {
            return message;
        }
        return new ReadOnly(message);
    }

    private static final class ReadOnly extends java.util.AbstractMap<String, Object> implements Message {
        private final Map<String, Object> fields;

        private ReadOnly(Map<String, Object> fields) {
            this.fields = Collections.unmodifiableMap(fields);
        }

        @Override
        public java.util.Set<Entry<String, Object>> entrySet() {
            return fields.entrySet();
        }

        @Override
        public Object get(Object key) {
            return fields.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return fields.containsKey(key);
        }

        @Override
        public int size() {
            return fields.size();
        }
    }
}
