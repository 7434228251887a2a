package org.bayeux.testsupport;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts what a failover test must count: per subscriber and channel, messages lost, duplicated and reordered, and
 * per client, {@code clientId} changes and re-handshakes. Every message carries its publisher and a sequence number
 * that grows per publisher; the checker is told what each publisher published and whether the server acknowledged
 * it, which channels each subscriber was subscribed to before publishing began, and each delivery.
 * <ul>
 * <li>lost: an acknowledged publish on a channel the subscriber was subscribed to, never delivered to it (an
 * unacknowledged one may be delivered once or not at all; a delivery of one is counted apart);</li>
 * <li>duplicated: every delivery of a message after its first;</li>
 * <li>reordered: a first delivery whose sequence number is below one already delivered from the same publisher on
 * the same channel;</li>
 * <li>unexpected: a delivery of a message no publisher reported, or on a channel the subscriber was not subscribed
 * to;</li>
 * <li>re-handshakes: successful handshakes after the first; {@code clientId} changes: how often the clientId a
 * client holds differed from the one before.</li>
 * </ul>
 * Thread-safe; feed it from the clients' threads and ask for the {@link Report} once every publisher is done and
 * every subscriber has received what it will.
 */
public final class DeliveryChecker {
    /** subscriber -> family */
    private final Map<String, String> families = new LinkedHashMap<>();
    /** subscriber -> channel -> publisher -> what was delivered */
    private final Map<String, Map<String, Map<String, Received>>> deliveries = new LinkedHashMap<>();
    /** channel -> publisher -> seq -> acknowledged */
    private final Map<String, Map<String, Map<Long, Boolean>>> publishes = new HashMap<>();
    private final Map<String, Client> clients = new LinkedHashMap<>();
    private long delivered;

    /**
     * Names a subscriber and the family it is counted in (such as "cometd-java-ack-websocket").
     *
     * @param subscriber the subscriber's name, unique in the test
     * @param family its family
     */
    public synchronized void subscriber(String subscriber, String family) {
        families.put(subscriber, family);
        deliveries.computeIfAbsent(subscriber, name -> new LinkedHashMap<>());
        clients.computeIfAbsent(subscriber, name -> new Client());
    }

    /**
     * @param subscriber a subscriber named by {@link #subscriber}
     * @param channel a channel it was subscribed to before publishing began: every acknowledged publish on it is
     *                expected once
     */
    public synchronized void subscribed(String subscriber, String channel) {
        known(subscriber).computeIfAbsent(channel, name -> new HashMap<>());
    }

    /**
     * @param publisher the publisher's name, as carried by its messages
     * @param channel the channel
     * @param seq the message's sequence number
     * @param acknowledged true if the server answered the publish successfully; false if it refused it or no answer
     *                     came (the message may or may not have been delivered)
     */
    public synchronized void published(String publisher, String channel, long seq, boolean acknowledged) {
        publishes.computeIfAbsent(channel, name -> new HashMap<>()).computeIfAbsent(publisher, name -> new HashMap<>())
                .merge(seq, acknowledged, Boolean::logicalOr);
    }

    /**
     * @param subscriber who received the message
     * @param channel the channel it arrived on
     * @param publisher the publisher it names
     * @param seq the sequence number it carries
     */
    public synchronized void delivered(String subscriber, String channel, String publisher, long seq) {
        delivered++;
        Map<String, Received> channelStreams = known(subscriber).get(channel);
        if (channelStreams == null) {
            clients.get(subscriber).unexpected++;
            return;
        }
        channelStreams.computeIfAbsent(publisher, name -> new Received()).add(seq);
    }

    /**
     * @param client a subscriber (or any other client) name
     * @param clientId the clientId a successful handshake reply gave it
     */
    public synchronized void handshake(String client, String clientId) {
        Client counts = clients.computeIfAbsent(client, name -> new Client());
        counts.handshakes++;
        counts.saw(clientId);
    }

    /**
     * @param client a subscriber (or any other client) name
     * @param clientId a clientId it used or was given, on any message
     */
    public synchronized void clientId(String client, String clientId) {
        clients.computeIfAbsent(client, name -> new Client()).saw(clientId);
    }

    /** @return deliveries fed so far, to all subscribers */
    public synchronized long deliveries() {
        return delivered;
    }

    /**
     * @param subscriber a subscriber
     * @return deliveries fed so far to it, counted once per message (what a test waits for)
     */
    public synchronized long distinctDeliveries(String subscriber) {
        return known(subscriber).values().stream().flatMap(streams -> streams.values().stream())
                .mapToLong(stream -> stream.counts.size()).sum();
    }

    /**
     * @param subscriber a subscriber
     * @param publisher a publisher
     * @return true if the subscriber received the message {@code seq} of the publisher on every channel it is
     *         subscribed to (a publisher's last message, say)
     */
    public synchronized boolean receivedEverywhere(String subscriber, String publisher, long seq) {
        return known(subscriber).values().stream().allMatch(streams -> streams.containsKey(publisher)
                && streams.get(publisher).counts.containsKey(seq));
    }

    /**
     * @param limit the most to list
     * @return what was lost, as {@code subscriber channel publisher#seq} lines, at most {@code limit}: where a failure
     *         report starts looking
     */
    public synchronized List<String> lost(int limit) {
        List<String> lost = new java.util.ArrayList<>();
        for (Map.Entry<String, Map<String, Map<String, Received>>> subscriber : deliveries.entrySet()) {
            for (Map.Entry<String, Map<String, Received>> channel : subscriber.getValue().entrySet()) {
                for (Map.Entry<String, Map<Long, Boolean>> publisher
                        : publishes.getOrDefault(channel.getKey(), Map.of()).entrySet()) {
                    Received stream = channel.getValue().get(publisher.getKey());
                    for (Map.Entry<Long, Boolean> message : new TreeMap<>(publisher.getValue()).entrySet()) {
                        if (message.getValue() && (stream == null || !stream.counts.containsKey(message.getKey()))
                                && lost.size() < limit) {
                            lost.add(subscriber.getKey() + " " + channel.getKey() + " " + publisher.getKey() + "#"
                                    + message.getKey());
                        }
                    }
                }
            }
        }
        return lost;
    }

    /** @return the counts now */
    public synchronized Report report() {
        Map<String, Map<String, Counts>> perChannel = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Map<String, Received>>> subscriber : deliveries.entrySet()) {
            Map<String, Counts> channels = new TreeMap<>();
            for (Map.Entry<String, Map<String, Received>> channel : subscriber.getValue().entrySet()) {
                channels.put(channel.getKey(), count(channel.getValue(),
                        publishes.getOrDefault(channel.getKey(), Map.of())));
            }
            perChannel.put(subscriber.getKey(), channels);
        }
        Map<String, Counts> perSubscriber = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Counts>> subscriber : perChannel.entrySet()) {
            Client client = clients.get(subscriber.getKey());
            Counts sum = new Counts(0, 0, 0, 0, client.unexpected, 0, client.handshakes,
                    Math.max(0, client.handshakes - 1), client.changes);
            for (Counts channel : subscriber.getValue().values()) {
                sum = sum.plus(channel);
            }
            perSubscriber.put(subscriber.getKey(), sum);
        }
        return new Report(Map.copyOf(families), perSubscriber, perChannel);
    }

    private Map<String, Map<String, Received>> known(String subscriber) {
        Map<String, Map<String, Received>> channels = deliveries.get(subscriber);
        if (channels == null) {
            throw new IllegalArgumentException("subscriber '" + subscriber + "' was not named by subscriber()");
        }
        return channels;
    }

    private static Counts count(Map<String, Received> received, Map<String, Map<Long, Boolean>> published) {
        long deliveredCount = 0;
        long lost = 0;
        long duplicated = 0;
        long reordered = 0;
        long unexpected = 0;
        long unacknowledgedDelivered = 0;
        for (Map.Entry<String, Received> stream : received.entrySet()) {
            Map<Long, Boolean> sent = published.getOrDefault(stream.getKey(), Map.of());
            for (Map.Entry<Long, Integer> message : stream.getValue().counts.entrySet()) {
                deliveredCount += message.getValue();
                duplicated += message.getValue() - 1;
                Boolean acknowledged = sent.get(message.getKey());
                if (acknowledged == null) {
                    unexpected += message.getValue();
                } else if (!acknowledged) {
                    unacknowledgedDelivered++;
                }
            }
            reordered += stream.getValue().reordered;
        }
        for (Map.Entry<String, Map<Long, Boolean>> publisher : published.entrySet()) {
            Received stream = received.get(publisher.getKey());
            for (Map.Entry<Long, Boolean> message : publisher.getValue().entrySet()) {
                if (message.getValue() && (stream == null || !stream.counts.containsKey(message.getKey()))) {
                    lost++;
                }
            }
        }
        return new Counts(deliveredCount, lost, duplicated, reordered, unexpected, unacknowledgedDelivered, 0, 0, 0);
    }

    /** One publisher's messages on one channel as one subscriber received them. */
    private static final class Received {
        /** seq -> deliveries */
        final Map<Long, Integer> counts = new HashMap<>();
        long highest = Long.MIN_VALUE;
        long reordered;

        void add(long seq) {
            if (counts.merge(seq, 1, Integer::sum) == 1) {
                if (seq < highest) {
                    reordered++;
                }
                highest = Math.max(highest, seq);
            }
        }
    }

    private static final class Client {
        long handshakes;
        long changes;
        long unexpected;
        String clientId;

        void saw(String id) {
            if (clientId != null && !clientId.equals(id)) {
                changes++;
            }
            clientId = id;
        }
    }

    /**
     * What a subscriber, a channel of it or a family of subscribers counted.
     *
     * @param delivered deliveries, duplicates included
     * @param lost acknowledged publishes never delivered
     * @param duplicated deliveries after a message's first
     * @param reordered first deliveries below a sequence number already delivered from the same publisher
     * @param unexpected deliveries of messages not reported published, or on channels not subscribed
     * @param unacknowledgedDelivered publishes not acknowledged yet delivered (allowed once)
     * @param handshakes successful handshakes
     * @param rehandshakes successful handshakes after the first
     * @param clientIdChanges changes of the clientId
     */
    public record Counts(long delivered, long lost, long duplicated, long reordered, long unexpected,
            long unacknowledgedDelivered, long handshakes, long rehandshakes, long clientIdChanges) {
        Counts plus(Counts other) {
            return new Counts(delivered + other.delivered, lost + other.lost, duplicated + other.duplicated,
                    reordered + other.reordered, unexpected + other.unexpected,
                    unacknowledgedDelivered + other.unacknowledgedDelivered, handshakes + other.handshakes,
                    rehandshakes + other.rehandshakes, clientIdChanges + other.clientIdChanges);
        }

        /** @return true if nothing was lost, duplicated, reordered or unexpected, and no client changed session */
        public boolean exact() {
            return lost == 0 && duplicated == 0 && reordered == 0 && unexpected == 0 && rehandshakes == 0
                    && clientIdChanges == 0;
        }
    }

    /**
     * The counts per subscriber, per subscriber and channel, and per family.
     *
     * @param families subscriber -> family
     * @param perSubscriber subscriber -> counts over its channels, with its handshakes
     * @param perChannel subscriber -> channel -> counts (no handshakes)
     */
    public record Report(Map<String, String> families, Map<String, Counts> perSubscriber,
            Map<String, Map<String, Counts>> perChannel) {
        /** @return family -> the sum of its subscribers' counts, families in name order */
        public Map<String, Counts> perFamily() {
            Map<String, Counts> sums = new TreeMap<>();
            perSubscriber.forEach((subscriber, counts) -> sums.merge(families.get(subscriber), counts, Counts::plus));
            return sums;
        }

        /**
         * @param family a family
         * @return its subscribers' counts summed
         */
        public Counts family(String family) {
            return perFamily().getOrDefault(family, new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0));
        }

        /** @return a table: one line per family, then one per subscriber whose counts are not exact */
        public String table() {
            StringBuilder table = new StringBuilder(String.format("%-34s %8s %6s %6s %6s %6s %6s %6s %6s %6s%n",
                    "family / subscriber", "deliv", "lost", "dup", "reord", "unexp", "unack", "hshk", "rehs",
                    "idchg"));
            perFamily().forEach((family, counts) -> table.append(line(family + " (" + members(family) + ")",
                    counts)));
            perSubscriber.forEach((subscriber, counts) -> {
                if (!counts.exact()) {
                    table.append(line("  " + subscriber, counts));
                }
            });
            return table.toString();
        }

        private long members(String family) {
            return families.values().stream().filter(family::equals).count();
        }

        private static String line(String name, Counts c) {
            return String.format("%-34s %8d %6d %6d %6d %6d %6d %6d %6d %6d%n", name, c.delivered(), c.lost(),
                    c.duplicated(), c.reordered(), c.unexpected(), c.unacknowledgedDelivered(), c.handshakes(),
                    c.rehandshakes(), c.clientIdChanges());
        }

        /** @return the subscribers whose counts are not exact */
        public List<String> inexact() {
            return perSubscriber.entrySet().stream().filter(entry -> !entry.getValue().exact())
                    .map(Map.Entry::getKey).toList();
        }
    }
}
