package org.bayeux.server.transport;

/**
 * How a {@link Carrier} that keeps a write backlog (a WebSocket) lets the engine pace its pushes, so that a slow
 * reader's messages wait in its session's queue, where the max-queue policy can still act, rather than in the
 * socket's backlog, where nothing can be taken back. A carrier without a backlog returns {@link #NONE} from
 * {@link Carrier#flowControl()}; one with a backlog returns itself (or a part it keeps), never a new object per call.
 */
public interface FlowControl {
    /** No backlog: nothing pending, never defer, run pushes at once on the calling thread. */
    FlowControl NONE = new FlowControl() {
    };

    /**
     * @return the bytes handed to {@link Carrier#send(OutgoingMessages)} that the network has not yet taken (a
     *         socket's write backlog); they count against the session's {@code maxQueueBytes} together with its
     *         queue. Must not block.
     */
    default long pendingBytes() {
        return 0;
    }

    /**
     * Asks, before a push hands over more messages, whether the carrier's write backlog is already large enough: if
     * so, the messages had better wait in the session's queue, where the max-queue policy can still drop the oldest
     * of them, than in the socket's backlog, where nothing can be taken back. Called under the session's lock.
     *
     * @param resume run once when the backlog has shrunk, on a thread that holds no session's lock, if this returns
     *        true
     * @return true if the push should wait for {@code resume}; false to push now (resume is then never run)
     */
    default boolean deferPush(Runnable resume) {
        return false;
    }

    /**
     * Runs a push of a session's queued messages on a carrier that {@link CarrierCapabilities#pushesWhileHeld()}.
     * The engine asks at most once per session until the push has run, so a carrier that runs it later, on a thread
     * of its own, lets every message queued meanwhile leave in one {@link Carrier#send(OutgoingMessages)}: under
     * load, pushes group themselves instead of costing one write per message. The default runs it at once, on the
     * calling thread.
     *
     * <p>The push must run eventually unless the carrier has died; it takes the session's lock, so it must not run
     * on a thread that holds another session's lock.</p>
     *
     * @param push the push
     */
    default void executePush(Runnable push) {
        push.run();
    }
}
