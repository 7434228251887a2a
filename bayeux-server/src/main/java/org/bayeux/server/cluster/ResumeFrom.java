package org.bayeux.server.cluster;

import java.util.Objects;

/**
 * What the engine puts as {@code ext.recovery} of the subscribe it makes for each channel of a session it adopts:
 * resume the channel strictly after {@code position} (what the client is known to have), through the cluster's
 * recovery. A Java object, which no JSON a client sends can produce: a client cannot pose as an adoption.
 *
 * @param position the position after which the session resumes
 */
public record ResumeFrom(ChannelPosition position) {
    /** @param position the position after which the session resumes */
    public ResumeFrom {
        Objects.requireNonNull(position, "position");
    }
}
