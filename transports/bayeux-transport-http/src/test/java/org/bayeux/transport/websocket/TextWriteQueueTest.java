package org.bayeux.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

class TextWriteQueueTest {
    /** A socket whose sends complete when the test says so, or at once. */
    private static final class ScriptedPeer implements SocketPeer {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<Consumer<Throwable>> waiting = new ArrayList<>();
        boolean completeAtOnce;

        @Override
        public void sendText(String text, Consumer<Throwable> done) {
            sent.add(text);
            if (completeAtOnce) {
                done.accept(null);
            } else {
                waiting.add(done);
            }
        }

        void completeNext(Throwable failure) {
            waiting.remove(0).accept(failure);
        }

        @Override
        public void close(int code, String reason) {
        }

        @Override
        public void abort() {
        }
    }

    @Test
    void writesOneAtATimeInOrder() {
        ScriptedPeer peer = new ScriptedPeer();
        TextWriteQueue queue = new TextWriteQueue(peer, 10, 10, failure -> { }, Runnable::run);
        assertThat(queue.write(texts("a", "b"))).isTrue();
        assertThat(queue.write(texts("c"))).isTrue();
        assertThat(peer.sent).containsExactly("a");
        peer.completeNext(null);
        assertThat(peer.sent).containsExactly("a", "b");
        peer.completeNext(null);
        peer.completeNext(null);
        assertThat(peer.sent).containsExactly("a", "b", "c");
        assertThat(queue.pendingBytes()).isZero();
        assertThat(queue.busySinceNanos()).isEqualTo(-1);
    }

    @Test
    void sendsCompletingInlineDoNotRecurse() {
        ScriptedPeer peer = new ScriptedPeer();
        peer.completeAtOnce = true;
        TextWriteQueue queue = new TextWriteQueue(peer, 1_000_000, 1_000_000, failure -> { }, Runnable::run);
        List<byte[]> many = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            many.add(String.valueOf(i).getBytes(StandardCharsets.UTF_8));
        }
        // Recursion would overflow the stack long before 50,000 sends.
        assertThat(queue.write(many)).isTrue();
        assertThat(peer.sent).hasSize(50_000).startsWith("0", "1").endsWith("49999");
    }

    @Test
    void refusesPastItsBytesAndStopsAfterAFailure() {
        ScriptedPeer peer = new ScriptedPeer();
        List<Throwable> failures = new ArrayList<>();
        TextWriteQueue queue = new TextWriteQueue(peer, 10, 10, failures::add, Runnable::run);
        assertThat(queue.write(texts("aaaa"))).isTrue();
        assertThat(queue.write(texts("bbb", "ccc"))).isTrue();
        // The text being sent counts: 4 + 3 + 3 bytes are waiting.
        assertThat(queue.pendingBytes()).isEqualTo(10);
        assertThat(queue.write(texts("d"))).as("full: a slow peer").isFalse();
        peer.completeNext(null);
        assertThat(queue.pendingBytes()).isEqualTo(6);
        assertThat(queue.write(texts("dddd"))).isTrue();
        peer.completeNext(new IOException("broken pipe"));
        assertThat(failures).hasSize(1);
        assertThat(queue.pendingBytes()).isZero();
        assertThat(queue.write(texts("e"))).isTrue();
        assertThat(peer.sent).containsExactly("aaaa", "bbb");
    }

    @Test
    void oneTextLargerThanTheBoundStillGoesWhenNothingWaits() {
        ScriptedPeer peer = new ScriptedPeer();
        TextWriteQueue queue = new TextWriteQueue(peer, 4, 4, failure -> { }, Runnable::run);
        assertThat(queue.write(texts("0123456789"))).isTrue();
        assertThat(queue.write(texts("a"))).isFalse();
    }

    @Test
    void pushesWaitWhileAFrameIsBehindAndResumeWhenItIsWritten() {
        ScriptedPeer peer = new ScriptedPeer();
        TextWriteQueue queue = new TextWriteQueue(peer, 1000, 8, failure -> { }, Runnable::run);
        List<String> resumed = new ArrayList<>();
        assertThat(queue.deferUntilWritable(() -> resumed.add("early"))).as("nothing waits").isFalse();
        queue.write(texts("12345678"));
        assertThat(queue.deferUntilWritable(() -> resumed.add("push"))).isTrue();
        assertThat(resumed).isEmpty();
        peer.completeNext(null);
        assertThat(resumed).containsExactly("push");
        assertThat(queue.deferUntilWritable(() -> resumed.add("again"))).isFalse();
    }

    @Test
    void busySinceTellsHowLongTheBacklogHasNotMoved() {
        ScriptedPeer peer = new ScriptedPeer();
        TextWriteQueue queue = new TextWriteQueue(peer, 1000, 1000, failure -> { }, Runnable::run);
        assertThat(queue.busySinceNanos()).isEqualTo(-1);
        long before = System.nanoTime();
        queue.write(texts("a", "b"));
        long firstSince = queue.busySinceNanos();
        assertThat(firstSince - before).isNotNegative();
        peer.completeNext(null);
        assertThat(queue.busySinceNanos() - firstSince).as("moved on a completed send").isNotNegative();
        peer.completeNext(null);
        assertThat(queue.busySinceNanos()).isEqualTo(-1);
    }

    private static List<byte[]> texts(String... texts) {
        List<byte[]> encoded = new ArrayList<>();
        for (String text : texts) {
            encoded.add(text.getBytes(StandardCharsets.UTF_8));
        }
        return encoded;
    }
}
