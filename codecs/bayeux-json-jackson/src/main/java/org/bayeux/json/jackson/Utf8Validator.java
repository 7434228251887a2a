package org.bayeux.json.jackson;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Checks that bytes are well-formed UTF-8 as RFC 3629 defines it.
 *
 * <p>Jackson's byte parser decodes UTF-8 itself but lets through overlong forms ({@code C0 80} for NUL) and code
 * points above U+10FFFF, turning them into characters the sender never wrote. Checking first keeps the codec's
 * promise that invalid UTF-8 is rejected; the check reads eight ASCII bytes at a time, so it costs little next to
 * the parse.</p>
 */
final class Utf8Validator {
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
    static int firstInvalidByte(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        while (i < end) {
            if (i + Long.BYTES <= end && ((long) EIGHT_BYTES.get(bytes, i) & HIGH_BITS) == 0) {
                i += Long.BYTES;
                continue;
            }
            int lead = bytes[i];
            if (lead >= 0) {
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
