package org.bayeux.transport.jetty;

/**
 * Finds one cookie in a {@code Cookie} request header (RFC 6265 §4.2: {@code name=value} pairs separated by
 * semicolons), without parsing the others.
 */
final class CookieHeader {
    private CookieHeader() {
    }

    /**
     * @param header the value of one {@code Cookie} header
     * @param name the cookie's name, compared exactly
     * @return the value of the first cookie of that name, without surrounding double quotes, or null if none
     */
    static String valueOf(String header, String name) {
        int length = header.length();
        int at = 0;
        while (at < length) {
            int end = header.indexOf(';', at);
            if (end < 0) {
                end = length;
            }
            int start = skipSpaces(header, at, end);
            int equals = header.indexOf('=', start);
            if (equals > start && equals < end && nameMatches(header, start, equals, name)) {
                int valueStart = skipSpaces(header, equals + 1, end);
                int valueEnd = end;
                while (valueEnd > valueStart && isSpace(header.charAt(valueEnd - 1))) {
                    valueEnd--;
                }
                if (valueEnd - valueStart >= 2 && header.charAt(valueStart) == '"'
                        && header.charAt(valueEnd - 1) == '"') {
                    valueStart++;
                    valueEnd--;
                }
                return header.substring(valueStart, valueEnd);
            }
            at = end + 1;
        }
        return null;
    }

    private static boolean nameMatches(String header, int start, int equals, String name) {
        int nameEnd = equals;
        while (nameEnd > start && isSpace(header.charAt(nameEnd - 1))) {
            nameEnd--;
        }
        return nameEnd - start == name.length() && header.regionMatches(start, name, 0, name.length());
    }

    private static int skipSpaces(String header, int from, int end) {
        int at = from;
        while (at < end && isSpace(header.charAt(at))) {
            at++;
        }
        return at;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
