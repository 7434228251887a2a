package org.bayeux.oort;

import java.time.Duration;

/**
 * One peer URL as this node sees it at one moment ({@link Oort#links()}): the state of this node's link to it, the
 * incarnation that joined from it, and what the link holds.
 *
 * @param url the peer's URL
 * @param linkState the state of this node's link to the URL (our Java client's {@code BayeuxClient.State} name), or
 *                  {@code NONE} while no link exists (after a teardown, until the redial)
 * @param inboundId the incarnation whose link to this node is open here, or null
 * @param memberId the incarnation joined now, or null if none has joined from this URL
 * @param roundTrip the last heartbeat's round trip on the link, or null before the first answer
 * @param sinceHeard how long ago the joined incarnation last sent anything here, or null if none has joined
 * @param queued forwards the link holds that the peer has not acknowledged
 * @param queuedBytes their bytes
 * @param resent forwards the link sent again after it flapped
 * @param gossiped how many members the peer listed in its last gossip, or -1 if none came
 */
public record LinkSnapshot(String url, String linkState, String inboundId, String memberId, Duration roundTrip,
        Duration sinceHeard, int queued, long queuedBytes, long resent, int gossiped) {
}
