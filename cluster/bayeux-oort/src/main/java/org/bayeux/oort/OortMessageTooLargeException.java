package org.bayeux.oort;

/**
 * A message for other nodes, or a replicated object's part, whose JSON is larger than {@code oort.maxMessageBytes}:
 * it is not sent, and the local change that would have needed it is not made.
 */
public class OortMessageTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final int bytes;
    private final int maxBytes;

    /**
     * @param what what was too large, for the message (a service name, an object's name)
     * @param bytes its size in bytes, as JSON
     * @param maxBytes {@code oort.maxMessageBytes}
     */
    public OortMessageTooLargeException(String what, int bytes, int maxBytes) {
        super("Oort: " + what + " is " + bytes + " bytes of JSON, more than oort.maxMessageBytes=" + maxBytes
                + ": not sent");
        this.bytes = bytes;
        this.maxBytes = maxBytes;
    }

    /** @return the size that was refused, in bytes of JSON */
    public int bytes() {
        return bytes;
    }

    /** @return the limit, {@code oort.maxMessageBytes} */
    public int maxBytes() {
        return maxBytes;
    }
}
