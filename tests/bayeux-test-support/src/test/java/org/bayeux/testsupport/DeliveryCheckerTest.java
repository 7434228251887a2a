package org.bayeux.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bayeux.testsupport.DeliveryChecker.Counts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link DeliveryChecker}: each kind of fault counted once, where it happened, and nothing else. */
class DeliveryCheckerTest {
    private final DeliveryChecker checker = new DeliveryChecker();

    @BeforeEach
    void twoSubscribersTwoChannelsTwoPublishers() {
        checker.subscriber("a", "ack");
        checker.subscriber("b", "no-ack");
        checker.subscribed("a", "/x");
        checker.subscribed("a", "/y");
        checker.subscribed("b", "/x");
        for (long seq = 0; seq < 5; seq++) {
            checker.published("p", "/x", seq, true);
            checker.published("q", "/y", seq, true);
        }
        checker.handshake("a", "id-a");
        checker.handshake("b", "id-b");
    }

    private void deliverAll(String subscriber, String channel, String publisher) {
        for (long seq = 0; seq < 5; seq++) {
            checker.delivered(subscriber, channel, publisher, seq);
        }
    }

    @Test
    void everyMessageOnceInOrderIsExact() {
        deliverAll("a", "/x", "p");
        deliverAll("a", "/y", "q");
        deliverAll("b", "/x", "p");
        DeliveryChecker.Report report = checker.report();
        assertThat(report.perSubscriber()).allSatisfy((name, counts) -> assertThat(counts.exact()).isTrue());
        assertThat(report.family("ack")).isEqualTo(new Counts(10, 0, 0, 0, 0, 0, 1, 0, 0));
        assertThat(report.family("no-ack").delivered()).isEqualTo(5);
        assertThat(report.inexact()).isEmpty();
        assertThat(checker.deliveries()).isEqualTo(15);
        assertThat(checker.distinctDeliveries("a")).isEqualTo(10);
        assertThat(checker.receivedEverywhere("a", "p", 4)).as("a has no p on /y").isFalse();
        assertThat(checker.receivedEverywhere("b", "p", 4)).isTrue();
    }

    @Test
    void aMissingAcknowledgedMessageIsLostOnItsChannelOnly() {
        deliverAll("a", "/y", "q");
        checker.delivered("a", "/x", "p", 0);
        checker.delivered("a", "/x", "p", 1);
        checker.delivered("a", "/x", "p", 3);
        checker.delivered("a", "/x", "p", 4);
        DeliveryChecker.Report report = checker.report();
        assertThat(report.perChannel().get("a").get("/x").lost()).isEqualTo(1);
        assertThat(report.perChannel().get("a").get("/y").lost()).isZero();
        assertThat(report.perChannel().get("a").get("/x").reordered()).as("a gap is not a reorder").isZero();
        assertThat(report.perSubscriber().get("b").lost()).as("b received nothing").isEqualTo(5);
        assertThat(report.inexact()).containsExactly("a", "b");
    }

    @Test
    void anUnacknowledgedPublishMayBeMissingAndIsCountedWhenDelivered() {
        checker.published("p", "/x", 5, false);
        checker.published("p", "/x", 6, false);
        deliverAll("b", "/x", "p");
        checker.delivered("b", "/x", "p", 6);
        Counts b = checker.report().perSubscriber().get("b");
        assertThat(b.lost()).isZero();
        assertThat(b.unacknowledgedDelivered()).isEqualTo(1);
        assertThat(b.exact()).isTrue();
    }

    @Test
    void aSecondDeliveryIsADuplicateNotAReorder() {
        deliverAll("b", "/x", "p");
        checker.delivered("b", "/x", "p", 2);
        checker.delivered("b", "/x", "p", 2);
        Counts b = checker.report().perSubscriber().get("b");
        assertThat(b.duplicated()).isEqualTo(2);
        assertThat(b.reordered()).isZero();
        assertThat(b.delivered()).isEqualTo(7);
    }

    @Test
    void aFirstDeliveryBelowOneAlreadyDeliveredIsReordered() {
        for (long seq : new long[] {0, 2, 1, 4, 3}) {
            checker.delivered("b", "/x", "p", seq);
        }
        Counts b = checker.report().perSubscriber().get("b");
        assertThat(b.reordered()).isEqualTo(2);
        assertThat(b.lost()).isZero();
        assertThat(b.duplicated()).isZero();
    }

    @Test
    void ordersArePerPublisherAndChannel() {
        checker.subscribed("b", "/y");
        checker.delivered("b", "/x", "p", 4);
        checker.delivered("b", "/y", "q", 0);
        checker.delivered("b", "/x", "p", 3);
        assertThat(checker.report().perChannel().get("b").get("/x").reordered()).isEqualTo(1);
        assertThat(checker.report().perChannel().get("b").get("/y").reordered()).isZero();
    }

    @Test
    void unknownMessagesAndUnsubscribedChannelsAreUnexpected() {
        deliverAll("b", "/x", "p");
        checker.delivered("b", "/x", "p", 99);
        checker.delivered("b", "/x", "stranger", 0);
        checker.delivered("b", "/y", "q", 0);
        Counts b = checker.report().perSubscriber().get("b");
        assertThat(b.unexpected()).isEqualTo(3);
        assertThat(b.exact()).isFalse();
    }

    @Test
    void reHandshakesAndClientIdChangesArePerClient() {
        deliverAll("a", "/x", "p");
        deliverAll("a", "/y", "q");
        deliverAll("b", "/x", "p");
        checker.clientId("a", "id-a");
        checker.handshake("b", "id-b2");
        checker.clientId("b", "id-b2");
        DeliveryChecker.Report report = checker.report();
        assertThat(report.perSubscriber().get("a").exact()).isTrue();
        Counts b = report.perSubscriber().get("b");
        assertThat(b.handshakes()).isEqualTo(2);
        assertThat(b.rehandshakes()).isEqualTo(1);
        assertThat(b.clientIdChanges()).isEqualTo(1);
        assertThat(report.table()).contains("no-ack (1)").contains("ack (1)").contains("  b ")
                .doesNotContain("  a ");
    }

    @Test
    void aDeliveryToAnUnnamedSubscriberIsAnError() {
        assertThatThrownBy(() -> checker.delivered("nobody", "/x", "p", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nobody");
    }
}
