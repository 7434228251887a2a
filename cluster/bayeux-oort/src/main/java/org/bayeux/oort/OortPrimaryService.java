package org.bayeux.oort;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * An {@link OortService} whose every call is owned by one node, the primary, named by its URL in the configuration
 * of every node (it is configured, not elected): the primary runs the calls itself, any other node forwards them to
 * it, and while the primary is not joined every call fails at once with
 * {@link OortServiceException.Reason#NOT_JOINED}.
 *
 * @param <Req> the request's type
 * @param <Resp> the answer's type
 */
public final class OortPrimaryService<Req, Resp> extends OortService<Req, Resp> {
    private final String primaryUrl;
    private final String selfUrl;

    private OortPrimaryService(Oort oort, String name, String primaryUrl, Duration timeout,
            Handler<Req, Resp> handler) {
        super(oort, name, timeout, handler);
        this.primaryUrl = Objects.requireNonNull(primaryUrl, "primaryUrl");
        this.selfUrl = oort.config().url();
    }

    /**
     * @param oort the node
     * @param name the service's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param primaryUrl the primary's {@code oort.url}, the same on every node
     * @param timeout how long a call waits for the primary's answer
     * @param handler runs the calls when this node is the primary
     * @param <Req> the request's type
     * @param <Resp> the answer's type
     * @return the service, registered on the node
     */
    public static <Req, Resp> OortPrimaryService<Req, Resp> create(Oort oort, String name, String primaryUrl,
            Duration timeout, Handler<Req, Resp> handler) {
        return new OortPrimaryService<>(oort, name, primaryUrl, timeout, handler);
    }

    /** @return the primary's URL */
    public String primaryUrl() {
        return primaryUrl;
    }

    /** @return true if this node is the primary */
    public boolean isPrimary() {
        return primaryUrl.equals(selfUrl);
    }

    /**
     * Calls the primary.
     *
     * @param request the request, JSON-serialisable
     * @return the answer, as {@link #call(String, Object)} with the primary's URL
     */
    public CompletionStage<Resp> call(Req request) {
        return call(primaryUrl, request);
    }
}
