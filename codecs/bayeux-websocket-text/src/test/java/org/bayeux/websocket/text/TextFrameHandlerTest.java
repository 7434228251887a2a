package org.bayeux.websocket.text;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The handler's own state rules, against a stand-in for Jetty's session that behaves as a failed connection does:
 * once Jetty has failed a connection it refuses further demand ({@code IllegalStateException: Flusher is failed}
 * from the {@code permessage-deflate} extension) before it has told the handler through {@code onError} or
 * {@code onClosed}.
 */
class TextFrameHandlerTest {

    @Test
    void closingASocketWhoseConnectionFailedIsANoOp() {
        FailedSession failed = new FailedSession();
        Handler handler = new Handler();
        handler.onOpen(failed, Callback.NOOP);
        // A message arrived and is being processed: no demand is pending, so closing has to ask for the peer's close.
        handler.onFrame(new Frame(OpCode.TEXT, "[]"), Callback.NOOP);
        failed.fail();

        assertThatCode(() -> handler.close(1001, "server stopping")).doesNotThrowAnyException();
        assertThat(failed.aborted).as("the dead connection is released").isTrue();
    }

    @Test
    void aDemandOnAFailedConnectionDoesNotThrowIntoTheCaller() {
        FailedSession failed = new FailedSession();
        Handler handler = new Handler();
        handler.onOpen(failed, Callback.NOOP);
        handler.onFrame(new Frame(OpCode.TEXT, "[]"), Callback.NOOP);
        failed.fail();

        assertThatCode(handler::readNext).doesNotThrowAnyException();
        assertThat(failed.aborted).isTrue();
    }

    @Test
    void aSecondCloseSendsNoSecondCloseFrame() {
        FailedSession session = new FailedSession();
        Handler handler = new Handler();
        handler.onOpen(session, Callback.NOOP);

        handler.close(1001, "first");
        handler.close(1011, "second");

        assertThat(session.closes).containsExactly(1001);
    }

    /** Records what the handler asks of Jetty; after {@link #fail()}, demand throws as Jetty's does then. */
    private static final class FailedSession extends CoreSession.Empty {
        final List<Integer> closes = new ArrayList<>();
        volatile boolean failed;
        volatile boolean aborted;

        void fail() {
            failed = true;
        }

        @Override
        public void demand() {
            if (failed) {
                throw new IllegalStateException("Flusher is failed");
            }
        }

        @Override
        public boolean isOutputOpen() {
            // Jetty still reports the output open at that moment: the handler may not rely on it.
            return true;
        }

        @Override
        public void close(int statusCode, String reason, Callback callback) {
            closes.add(statusCode);
            callback.succeeded();
        }

        @Override
        public void abort() {
            aborted = true;
        }
    }

    private static final class Handler extends TextFrameHandler {
        Handler() {
            super(1024);
        }

        @Override
        protected void opened() {
        }

        @Override
        protected void onText(String text) {
            // Processing continues elsewhere; the next frame is demanded later (readNext).
        }

        void readNext() {
            demand();
        }

        @Override
        protected void onBinary() {
        }

        @Override
        public void onError(Throwable cause, Callback callback) {
            callback.succeeded();
        }

        @Override
        public void onClosed(CloseStatus closeStatus, Callback callback) {
            callback.succeeded();
        }
    }
}
