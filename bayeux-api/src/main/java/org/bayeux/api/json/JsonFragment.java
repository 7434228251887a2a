package org.bayeux.api.json;

import java.nio.charset.StandardCharsets;

/**
 * A piece of JSON that is already encoded, written as is when it appears inside a value being encoded. This is
 * how a message encoded once is reused in many outgoing batches.
 */
public final class JsonFragment {
    private final byte[] utf8;

    /**
     * @param utf8 valid JSON, UTF-8 encoded; the array is not copied and must not change
     */
    public JsonFragment(byte[] utf8) {
        this.utf8 = utf8;
    }

    /** @return the UTF-8 bytes; callers must not change them */
    public byte[] utf8() {
        return utf8;
    }

    /** @return the JSON text */
    public String text() {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return text();
    }
}
