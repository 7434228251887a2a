package org.bayeux.websocket.text;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.exception.BadPayloadException;
import org.eclipse.jetty.websocket.core.exception.MessageTooLargeException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TextMessageAssemblerTest {

    @Test
    void aMessageInOneFrameComesOutAtOnce() {
        TextMessageAssembler assembler = new TextMessageAssembler(1024);

        assertThat(assembler.add(text("[{\"channel\":\"/a\"}]", true))).isEqualTo("[{\"channel\":\"/a\"}]");
        assertThat(assembler.add(text("", true))).isEmpty();
    }

    @Test
    void framesAreJoinedEvenWhereTheyCutACharacterInTwo() {
        byte[] utf8 = "é€😀 done".getBytes(StandardCharsets.UTF_8);
        TextMessageAssembler assembler = new TextMessageAssembler(1024);

        // Cut after 1, 3 and 6 bytes: inside the é, the € and the emoji.
        assertThat(assembler.add(frame(OpCode.TEXT, Arrays.copyOfRange(utf8, 0, 1), false))).isNull();
        assertThat(assembler.add(frame(OpCode.CONTINUATION, Arrays.copyOfRange(utf8, 1, 3), false))).isNull();
        assertThat(assembler.add(frame(OpCode.CONTINUATION, Arrays.copyOfRange(utf8, 3, 6), false))).isNull();
        assertThat(assembler.add(frame(OpCode.CONTINUATION, Arrays.copyOfRange(utf8, 6, utf8.length), true)))
                .isEqualTo("é€😀 done");
        // The next message starts afresh.
        assertThat(assembler.add(text("next", true))).isEqualTo("next");
    }

    @Test
    void aMessageUpToTheLimitPassesOneByteMoreDoesNot() {
        TextMessageAssembler assembler = new TextMessageAssembler(10);

        assertThat(assembler.add(text("12345", false))).isNull();
        assertThat(assembler.add(continuation("67890", true))).isEqualTo("1234567890");

        assertThat(assembler.add(text("12345", false))).isNull();
        assertThatThrownBy(() -> assembler.add(continuation("678901", true)))
                .isInstanceOf(MessageTooLargeException.class)
                .hasMessageContaining("10 bytes")
                .satisfies(e -> assertThat(((MessageTooLargeException) e).getStatusCode()).isEqualTo(1009));
        assertThatThrownBy(() -> assembler.add(text("12345678901", true)))
                .isInstanceOf(MessageTooLargeException.class);
        // What was gathered before the refusal is gone.
        assertThat(assembler.add(text("ok", true))).isEqualTo("ok");
    }

    @Test
    void invalidUtf8IsRefusedWithStatus1007() {
        TextMessageAssembler assembler = new TextMessageAssembler(1024);
        byte[] cutShort = Arrays.copyOf("€".getBytes(StandardCharsets.UTF_8), 2);

        assertThatThrownBy(() -> assembler.add(frame(OpCode.TEXT, cutShort, true)))
                .isInstanceOf(BadPayloadException.class)
                .satisfies(e -> assertThat(((BadPayloadException) e).getStatusCode()).isEqualTo(1007));
        // A lead byte in one frame, a byte that cannot follow it in the next.
        assertThat(assembler.add(frame(OpCode.TEXT, new byte[] {(byte) 0xC3}, false))).isNull();
        assertThatThrownBy(() -> assembler.add(frame(OpCode.CONTINUATION, new byte[] {'('}, true)))
                .isInstanceOf(BadPayloadException.class);
    }

    @Test
    void aPongCarriesACopyOfThePingsPayload() {
        byte[] data = {1, 2, 3};
        Frame ping = frame(OpCode.PING, data, true);

        Frame pong = TextMessageAssembler.pongFor(ping);
        data[0] = 9;

        assertThat(pong.getOpCode()).isEqualTo(OpCode.PONG);
        ByteBuffer payload = pong.getPayload();
        assertThat(new byte[] {payload.get(0), payload.get(1), payload.get(2)}).containsExactly(1, 2, 3);
        assertThat(TextMessageAssembler.pongFor(new Frame(OpCode.PING)).hasPayload()).isFalse();
    }

    @Test
    void aLimitBelowOneByteIsRefused() {
        assertThatThrownBy(() -> new TextMessageAssembler(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxMessageBytes");
    }

    private static Frame text(String text, boolean fin) {
        return frame(OpCode.TEXT, text.getBytes(StandardCharsets.UTF_8), fin);
    }

    private static Frame continuation(String text, boolean fin) {
        return frame(OpCode.CONTINUATION, text.getBytes(StandardCharsets.UTF_8), fin);
    }

    private static Frame frame(byte opCode, byte[] payload, boolean fin) {
        return new Frame(opCode, fin, ByteBuffer.wrap(payload));
    }
}
