package org.bayeux.api.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.Test;

/**
 * Checks {@link Utf8Validator}, its check and its decoding alike, against the JDK's strict UTF-8 decoder on every
 * sequence of up to three bytes and a broad sample of four-byte ones, at every alignment of the eight-byte ASCII fast
 * path.
 */
class Utf8ValidatorTest {
    private static final int[] EDGE_BYTES = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};

    /** Reused across checks: decoding millions of sequences must stay fast. */
    private final CharsetDecoder jdk = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final List<String> disagreements = new ArrayList<>();

    @Test
    void agreesWithTheJdkOnEveryShortSequence() {
        for (int first = 0; first < 256; first++) {
            for (int second = 0; second < 256; second++) {
                check(first, second);
                if (first >= 0xE0) {
                    for (int third = 0; third < 256; third += first < 0xF0 ? 1 : 17) {
                        check(first, second, third);
                    }
                }
            }
        }
        assertThat(disagreements).isEmpty();
    }

    @Test
    void agreesWithTheJdkOnFourByteSequences() {
        for (int first = 0xF0; first < 0x100; first++) {
            for (int second = 0x70; second < 0xD0; second++) {
                for (int third : EDGE_BYTES) {
                    for (int fourth : EDGE_BYTES) {
                        check(first, second, third, fourth);
                    }
                }
            }
        }
        assertThat(disagreements).isEmpty();
    }

    @Test
    void asciiRunsOfEveryLengthAroundMultiByteCharactersDecode() {
        for (int before = 0; before < 20; before++) {
            for (int after = 0; after < 20; after++) {
                String text = "x".repeat(before) + "\u00e9\u4e2d\uD83D\uDE00" + "y".repeat(after);
                byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                char[] chars = new char[utf8.length];
                int decoded = Utf8Validator.decode(utf8, 0, utf8.length, chars);
                assertThat(new String(chars, 0, decoded)).isEqualTo(text);
            }
        }
    }

    @Test
    void badBytesAreReportedRelativeToTheOffset() {
        byte[] utf8 = "[[[[[[[[[[[[ok\u00e9ok".getBytes(StandardCharsets.UTF_8);
        utf8[utf8.length - 3] = (byte) 0xC3;
        utf8[utf8.length - 4] = (byte) 0xFF;
        assertThat(Utf8Validator.decode(utf8, 10, utf8.length - 10, new char[utf8.length])).isEqualTo(-1 - 4);
    }

    @Test
    void theOffsetCheckedIsThatOfTheFirstBadSequenceRelativeToTheStart() {
        byte[] bytes = "0123456789abcdefghij\u00e9klmnop".getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8Validator.firstInvalidByte(bytes, 0, bytes.length)).isEqualTo(-1);
        bytes[21] = 'x';
        assertThat(Utf8Validator.firstInvalidByte(bytes, 3, bytes.length - 3)).isEqualTo(17);
        assertThat(Utf8Validator.firstInvalidByte(bytes, 3, 17)).isEqualTo(-1);
        assertThat(Utf8Validator.firstInvalidByte(bytes, 3, 18)).isEqualTo(17);
    }

    /**
     * Decodes and checks the bytes after an ASCII prefix, at each alignment, and notes any difference from the JDK,
     * or between the check and the decoding.
     */
    private void check(int... sequence) {
        for (int prefix = 0; prefix <= Long.BYTES; prefix += Long.BYTES / 2) {
            byte[] bytes = new byte[prefix + sequence.length];
            Arrays.fill(bytes, 0, prefix, (byte) 'a');
            for (int i = 0; i < sequence.length; i++) {
                bytes[prefix + i] = (byte) sequence[i];
            }
            String expected = jdkDecode(bytes);
            char[] chars = new char[bytes.length];
            int decoded = Utf8Validator.decode(bytes, 0, bytes.length, chars);
            String actual = decoded < 0 ? null : new String(chars, 0, decoded);
            if (!Objects.equals(expected, actual)) {
                disagreements.add(hex(sequence) + " after " + prefix + " ASCII: JDK " + expected + ", ours " + actual);
            }
            int checked = Utf8Validator.firstInvalidByte(bytes, 0, bytes.length);
            if (checked != (decoded < 0 ? -1 - decoded : -1)) {
                disagreements.add(hex(sequence) + " after " + prefix + " ASCII: decoded " + decoded + ", checked "
                        + checked);
            }
        }
    }

    /** @return the decoded text, or null if the JDK finds the bytes ill-formed */
    private String jdkDecode(byte[] bytes) {
        CharBuffer chars = CharBuffer.allocate(bytes.length);
        jdk.reset();
        CoderResult result = jdk.decode(ByteBuffer.wrap(bytes), chars, true);
        if (result.isError()) {
            return null;
        }
        return chars.flip().toString();
    }

    private static String hex(int... sequence) {
        StringBuilder text = new StringBuilder();
        for (int b : sequence) {
            text.append(String.format("%02X ", b));
        }
        return text.toString().trim();
    }
}
