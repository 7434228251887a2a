package org.bayeux.server;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.bayeux.api.ChannelId;
import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.ServerMessage;

/**
 * The engine's message: a hash map that can be frozen. A frozen message refuses changes and caches its JSON bytes,
 * so a broadcast is encoded once however many sessions receive it.
 */
public final class ServerMessageImpl extends HashMap<String, Object> implements ServerMessage.Mutable {
    private static final long serialVersionUID = 1L;

    private transient ServerMessage associated;
    private transient boolean lazy;
    private transient volatile boolean frozen;
    /** When {@link #freeze()} was first called; read for {@link EngineStatistics}'s delivery latency. */
    private transient long frozenAtNanos;
    /** Once frozen: the message as a one-element JSON array, {@code [message]}, as {@link #toJsonArrayBytes} says. */
    private transient volatile byte[] json;
    private transient ChannelId channelId;

    /**
     * Creates an empty message, with room for six fields before its table grows: all of a connect's and of its
     * reply's, which an idle session keeps while its connect is held (16 would cost each of the two 32 bytes more).
     */
    public ServerMessageImpl() {
        super(8);
    }

    /**
     * @param fields the fields to copy (a shallow copy)
     */
    public ServerMessageImpl(Map<String, Object> fields) {
        super(fields);
    }

    @Override
    public ServerMessage getAssociated() {
        return associated;
    }

    @Override
    public void setAssociated(ServerMessage associated) {
        this.associated = associated;
    }

    @Override
    public boolean isLazy() {
        return lazy;
    }

    @Override
    public void setLazy(boolean lazy) {
        checkNotFrozen();
        this.lazy = lazy;
    }

    @Override
    public boolean isFrozen() {
        return frozen;
    }

    /** Makes this message unchangeable; from now on it may be shared between sessions and threads. */
    public void freeze() {
        if (!frozen) {
            // One clock read per message, not per recipient: the start of its delivery latency.
            frozenAtNanos = System.nanoTime();
        }
        frozen = true;
    }

    /** @return {@link System#nanoTime()} when this message was first frozen, or 0 if it is not */
    long frozenAtNanos() {
        return frozenAtNanos;
    }

    @Override
    public ChannelId getChannelId() {
        String channel = getChannel();
        ChannelId cached = channelId;
        if (cached != null && cached.name().equals(channel)) {
            return cached;
        }
        if (channel == null || !ChannelId.isValid(channel)) {
            return null;
        }
        cached = ChannelId.of(channel);
        channelId = cached;
        return cached;
    }

    @Override
    public ServerMessage.Mutable copy() {
        ServerMessageImpl copy = new ServerMessageImpl(this);
        copy.lazy = lazy;
        return copy;
    }

    /**
     * Returns this message as UTF-8 JSON. A frozen message's bytes are cached ({@link #toJsonArrayBytes}), and this
     * returns a copy of them: the engine itself uses {@link #toJsonArrayBytes} and {@link #jsonLength}.
     *
     * @param codec the codec to encode with
     * @return the JSON bytes of the message, an object
     */
    public byte[] toJsonBytes(JsonCodec codec) {
        if (!frozen) {
            return codec.toJsonBytes(this);
        }
        byte[] array = toJsonArrayBytes(codec);
        return Arrays.copyOfRange(array, 1, array.length - 1);
    }

    /**
     * Returns this message as a JSON array of one element, {@code [message]}: exactly the bytes of a response or a
     * WebSocket text carrying this message alone. A frozen message is encoded once and the bytes are cached, so a
     * broadcast is encoded once and every session and socket that sends it alone shares the same array.
     *
     * @param codec the codec to encode with
     * @return the JSON bytes; shared: callers must never change them
     */
    public byte[] toJsonArrayBytes(JsonCodec codec) {
        if (!frozen) {
            return codec.toJsonBytes(List.of(this));
        }
        byte[] bytes = json;
        if (bytes == null) {
            // Two threads may both encode the first time; both results are equal, so no lock is needed.
            bytes = codec.toJsonBytes(List.of(this));
            json = bytes;
        }
        return bytes;
    }

    /**
     * @param codec the codec to encode with
     * @return the length of this message's JSON, an object, in bytes (from the cached bytes once frozen)
     */
    public int jsonLength(JsonCodec codec) {
        return toJsonArrayBytes(codec).length - 2;
    }

    /**
     * @return the length of this message's JSON (an object) if it is frozen and already encoded, else -1; never
     *         encodes, so that code without the codec (extensions) can count the bytes the engine counts
     */
    public int cachedJsonLength() {
        byte[] bytes = json;
        return bytes == null ? -1 : bytes.length - 2;
    }

    private void checkNotFrozen() {
        if (frozen) {
            throw new UnsupportedOperationException("Message is frozen: " + this);
        }
    }

    @Override
    public Object put(String key, Object value) {
        checkNotFrozen();
        return super.put(key, value);
    }

    @Override
    public void putAll(Map<? extends String, ?> fields) {
        checkNotFrozen();
        super.putAll(fields);
    }

    @Override
    public Object remove(Object key) {
        checkNotFrozen();
        return super.remove(key);
    }

    @Override
    public void clear() {
        checkNotFrozen();
        super.clear();
    }

    @Override
    public Object putIfAbsent(String key, Object value) {
        checkNotFrozen();
        return super.putIfAbsent(key, value);
    }
}
