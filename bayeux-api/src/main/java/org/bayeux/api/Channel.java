package org.bayeux.api;

/**
 * A channel, seen from either end.
 */
public interface Channel {
    /** @return the channel name */
    default String getId() {
        return getChannelId().name();
    }

    /** @return the parsed channel name */
    ChannelId getChannelId();

    /** @return true for {@code /meta/} channels */
    default boolean isMeta() {
        return getChannelId().isMeta();
    }

    /** @return true for {@code /service/} channels */
    default boolean isService() {
        return getChannelId().isService();
    }

    /** @return true for channels broadcast to subscribers */
    default boolean isBroadcast() {
        return getChannelId().isBroadcast();
    }

    /** @return true for names ending in {@code *} or {@code **} */
    default boolean isWildcard() {
        return getChannelId().isWildcard();
    }

    /** @return true for names ending in {@code **} */
    default boolean isDeepWildcard() {
        return getChannelId().isDeepWildcard();
    }
}
