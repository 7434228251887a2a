package org.bayeux.api.json;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The one check of UTF-8 the codecs share: well-formed as RFC 3629 defines it, so overlong forms, encoded surrogates,
 * code points above U+10FFFF, stray continuation bytes and cut-off sequences are all rejected. A codec that lets its
 * JSON library decode checks first ({@link #firstInvalidByte}); one that decodes itself does both at once
 * ({@link #decode}).
 *
 * <p>Both test eight bytes at a time for ASCII wherever they are in the input. The JDK's decoder, set to report
 * errors, is as strict, but it leaves its ASCII fast path for good at the first non-ASCII byte; on a batch of chat
 * messages with the odd accent it took about twice as long. Jackson's byte parser, for its part, lets overlong forms
 * and code points above U+10FFFF through, turning them into characters the sender never wrote.</p>
 */
public final class Utf8Validator {
    /** Reads eight bytes of an array as one long; the byte order does not matter for the high-bit test. */
    private static final VarHandle EIGHT_BYTES = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080_8080_8080_8080L;

    private Utf8Validator() {
    }

    /**
     * @param bytes the array
     * @param offset where the text starts
     * @param length how many bytes it has
     * @return the offset, relative to {@code offset}, of the first byte of the first ill-formed sequence, or
     *         {@code -1} if all the bytes are well-formed UTF-8
     */
    public static int firstInvalidByte(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        while (i < end) {
            if (i + Long.BYTES <= end && isAscii(bytes, i)) {
                i += Long.BYTES;
                continue;
            }
            if (bytes[i] >= 0) {
                i++;
                continue;
            }
            int sequenceLength = sequenceLength(bytes, i, end);
            if (sequenceLength < 0) {
                return i - offset;
            }
            i += sequenceLength;
        }
        return -1;
    }

    /**
     * Decodes UTF-8 into characters, rejecting every ill-formed sequence.
     *
     * @param bytes the UTF-8 input
     * @param offset where it starts
     * @param length how many bytes it has
     * @param chars where to put the characters; {@code length} of them always suffice
     * @return how many characters were decoded if the input is well-formed, or else {@code -1 - badOffset}, where
     *         {@code badOffset} is the offset (relative to {@code offset}) of the first ill-formed sequence
     */
    public static int decode(byte[] bytes, int offset, int length, char[] chars) {
        int end = offset + length;
        int in = offset;
        int out = 0;
        while (in < end) {
            if (in + Long.BYTES <= end && isAscii(bytes, in)) {
                for (int k = 0; k < Long.BYTES; k++) {
                    chars[out + k] = (char) bytes[in + k];
                }
                in += Long.BYTES;
                out += Long.BYTES;
                continue;
            }
            int lead = bytes[in];
            if (lead >= 0) {
                chars[out++] = (char) lead;
                in++;
                continue;
            }
            lead &= 0xFF;
            switch (sequenceLength(bytes, in, end)) {
                case 2:
                    chars[out++] = (char) ((lead & 0x1F) << 6 | bytes[in + 1] & 0x3F);
                    in += 2;
                    break;
                case 3:
                    chars[out++] = (char) ((lead & 0x0F) << 12 | (bytes[in + 1] & 0x3F) << 6 | bytes[in + 2] & 0x3F);
                    in += 3;
                    break;
                case 4:
                    int codePoint = (lead & 0x07) << 18 | (bytes[in + 1] & 0x3F) << 12 | (bytes[in + 2] & 0x3F) << 6
                            | bytes[in + 3] & 0x3F;
                    chars[out++] = Character.highSurrogate(codePoint);
                    chars[out++] = Character.lowSurrogate(codePoint);
                    in += 4;
                    break;
                default:
                    return -1 - (in - offset);
            }
        }
        return out;
    }

    private static boolean isAscii(byte[] bytes, int at) {
        return ((long) EIGHT_BYTES.get(bytes, at) & HIGH_BITS) == 0;
    }

    /** @return how many bytes the multi-byte sequence starting at {@code at} has, or -1 if it is ill-formed */
    private static int sequenceLength(byte[] bytes, int at, int end) {
        int lead = bytes[at] & 0xFF;
        if (lead < 0xC2) {
            // A continuation byte with no lead, or C0/C1, which could only start an overlong two-byte form.
            return -1;
        }
        if (lead < 0xE0) {
            return isContinuation(bytes, at + 1, end, 0x80, 0xBF) ? 2 : -1;
        }
        if (lead < 0xF0) {
            // E0 must not be overlong (second byte from A0); ED must not encode a surrogate (second byte to 9F).
            int low = lead == 0xE0 ? 0xA0 : 0x80;
            int high = lead == 0xED ? 0x9F : 0xBF;
            return isContinuation(bytes, at + 1, end, low, high) && isContinuation(bytes, at + 2, end, 0x80, 0xBF)
                    ? 3 : -1;
        }
        if (lead < 0xF5) {
            // F0 must not be overlong (second byte from 90); F4 must stay at or below U+10FFFF (second byte to 8F).
            int low = lead == 0xF0 ? 0x90 : 0x80;
            int high = lead == 0xF4 ? 0x8F : 0xBF;
            return isContinuation(bytes, at + 1, end, low, high) && isContinuation(bytes, at + 2, end, 0x80, 0xBF)
                    && isContinuation(bytes, at + 3, end, 0x80, 0xBF) ? 4 : -1;
        }
        return -1;
    }

    private static boolean isContinuation(byte[] bytes, int at, int end, int low, int high) {
        if (at >= end) {
            return false;
        }
        int value = bytes[at] & 0xFF;
        return value >= low && value <= high;
    }
}
