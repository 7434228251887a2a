package org.bayeux.load;

/**
 * Which rooms each client joins and which room each message goes to. Client {@code c} joins the {@code K} rooms
 * {@code (c·K + j) mod R}, so every room has the same number of members when {@code N·K} is a multiple of
 * {@code R}; message {@code s} goes to room {@code s mod R}.
 */
final class RoomPlan {
    static final String ROOM_PREFIX = "/load/room/";

    private final int rooms;
    private final int roomsPerClient;

    RoomPlan(int rooms, int roomsPerClient) {
        this.rooms = rooms;
        this.roomsPerClient = roomsPerClient;
    }

    int rooms() {
        return rooms;
    }

    /** @return the rooms client {@code client} joins */
    int[] roomsOf(int client) {
        int[] joined = new int[roomsPerClient];
        for (int j = 0; j < roomsPerClient; j++) {
            joined[j] = (int) (((long) client * roomsPerClient + j) % rooms);
        }
        return joined;
    }

    /** @return the room of message {@code seq} */
    int roomOf(long seq) {
        return (int) (seq % rooms);
    }

    static String channel(int room) {
        return ROOM_PREFIX + room;
    }
}
