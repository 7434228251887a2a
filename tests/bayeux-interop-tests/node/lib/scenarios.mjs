// Scenarios written once against the adapters' common interface: handshake(), subscribe(), unsubscribe(),
// publish(), disconnect(), plus the handshakes/clientIds/connectionTypes counters and a Signal to wait on.
// Each returns a plain object that becomes the result line; the JUnit side makes the assertions.
import {blob, summarize, within} from "./common.mjs";

/** Text that JSON encoders get wrong: accents, a BMP symbol, an astral emoji, JS line separators, controls. */
const TRICKY_TEXT = "h\u00e9llo \u2603 \ud83d\ude00 \u2028\u2029 \u0001\u001f \"q\" \\ </script> \t\n";
/**
 * Values of every JSON type. No array directly inside an array: the CometD Java client's default JSON parser
 * (Jetty's AsyncJSON) fails on one inside an object (see docs/interoperability.md).
 */
const TRICKY_LIST = [1, 1.5, -2, true, false, null, {}, {"empty": []}, "x"];

/** The longest any single step waits; the whole run is also bounded by --timeout. */
const STEP_MS = 15000;

function base(client, extra) {
    return {
        client: client.name,
        transport: client.transportName(),
        connectionTypes: [...client.connectionTypes],
        handshakes: client.handshakes,
        connects: client.connects,
        handshakeExt: client.handshakeExt ?? null,
        clientIds: client.clientIds,
        ...extra
    };
}

/** Count, distinct values, descents (a value not above the one before) and ends of a list of numbers. */
function sequenceStats(seqs) {
    let outOfOrder = 0;
    for (let i = 1; i < seqs.length; i++) {
        if (seqs[i] <= seqs[i - 1]) {
            outOfOrder++;
        }
    }
    return {count: seqs.length, distinct: new Set(seqs).size, outOfOrder, first: seqs[0], last: seqs[seqs.length - 1]};
}

/** A subscription's messages as {channel, data} objects, and the listener that collects them. */
function inbox() {
    const messages = [];
    const listener = (channel, data) => messages.push({channel, data});
    return {messages, listener};
}

export const scenarios = {
    /** Handshake, wait for the first connect reply, then disconnect. */
    async handshake(client) {
        const clientId = await within(client.handshake(), STEP_MS, "handshake");
        await client.signal.until(() => client.connects > 0, STEP_MS, "the first connect reply");
        const result = base(client, {clientId});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /** /w/* and /w/** subscriptions; publishes to /w, /w/a, /w/a/b, then /w/end as the last one. */
    async wildcard(client) {
        await within(client.handshake(), STEP_MS, "handshake");
        const one = inbox();
        const deep = inbox();
        await within(Promise.all([client.subscribe("/w/*", one.listener), client.subscribe("/w/**", deep.listener)]),
            STEP_MS, "subscribe");
        for (const channel of ["/w", "/w/a", "/w/a/b", "/w/end"]) {
            await within(client.publish(channel, {to: channel}), STEP_MS, `publish to ${channel}`);
        }
        const ended = box => box.messages.some(m => m.channel === "/w/end");
        await client.signal.until(() => ended(one) && ended(deep), STEP_MS, "/w/end on both subscriptions");
        const result = base(client, {
            star: one.messages.map(m => m.channel),
            starStar: deep.messages.map(m => m.channel)
        });
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /** Publish to a subscribed channel and get the message back. */
    async publish(client) {
        await within(client.handshake(), STEP_MS, "handshake");
        const box = inbox();
        await within(client.subscribe("/chat/room", box.listener), STEP_MS, "subscribe");
        const data = {text: "hello from " + client.name, n: 42, nested: {
            list: [1, "two", null, true], matrix: [[1, 2], [3]]
        }};
        await within(client.publish("/chat/room", data), STEP_MS, "publish");
        await client.signal.until(() => box.messages.length > 0, STEP_MS, "the message back");
        const result = base(client, {sent: data, received: box.messages});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /** After unsubscribing from /u/a, a publish there is not received; a later one to /u/fence is. */
    async unsubscribe(client) {
        await within(client.handshake(), STEP_MS, "handshake");
        const box = inbox();
        await within(Promise.all([client.subscribe("/u/a", box.listener), client.subscribe("/u/fence", box.listener)]),
            STEP_MS, "subscribe");
        await within(client.publish("/u/a", {n: 1}), STEP_MS, "publish 1");
        await client.signal.until(() => box.messages.length === 1, STEP_MS, "message 1");
        await within(client.unsubscribe("/u/a"), STEP_MS, "unsubscribe");
        await within(client.publish("/u/a", {n: 2}), STEP_MS, "publish 2");
        await within(client.publish("/u/fence", {n: 3}), STEP_MS, "publish 3");
        await client.signal.until(() => box.messages.some(m => m.channel === "/u/fence"), STEP_MS, "the fence");
        const result = base(client, {received: box.messages});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /** Disconnect while subscribed: the reply, and the client's state afterwards. */
    async disconnect(client) {
        const clientId = await within(client.handshake(), STEP_MS, "handshake");
        await within(client.subscribe("/d/a", () => {
        }), STEP_MS, "subscribe");
        const reply = await within(client.disconnect(), STEP_MS, "disconnect");
        return base(client, {clientId, disconnectReply: reply ?? null, status: client.status ? client.status() : null});
    },

    /**
     * Subscribes to --channel and waits for a message whose data has "after":"rehandshake"; each message is
     * reported with the number of handshakes seen when it arrived. The JUnit side makes the server expire the
     * session in between, and publishes that message once the client has subscribed again.
     */
    async rehandshake(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const received = [];
        await within(client.subscribe(args.channel,
            (channel, data) => received.push({channel, data, handshakes: client.handshakes})), STEP_MS, "subscribe");
        await client.signal.until(() => received.some(m => m.data && m.data.after === "rehandshake"),
            Number(args.wait ?? 30000), "a message after the re-handshake");
        const result = base(client, {received});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Subscribes to --channel, prints "INTEROP-SUBSCRIBED" once subscribed, and collects messages until one whose
     * data has "after":"moved" arrives, each with the number of handshakes seen when it arrived. The JUnit side
     * drains the server (SIGTERM): the client must get what was queued for it, handshake again (through the test's
     * balancer, on another server), subscribe again, and receive that last message there.
     */
    async move(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const received = [];
        await within(client.subscribe(args.channel,
            (channel, data) => received.push({data, handshakes: client.handshakes})), STEP_MS, "subscribe");
        process.stdout.write("INTEROP-SUBSCRIBED\n");
        await client.signal.until(() => received.some(m => m.data && m.data.after === "moved"),
            Number(args.wait ?? 60000), "the message published after the move");
        const result = base(client, {received});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Handshakes with a server that refuses (the JUnit side drains it): the client must retry by itself, as the
     * refusal's advice says, until a handshake succeeds (on another server, once the test's balancer moved). Then
     * subscribes to --channel and waits for one message. Reports the refusals (CometD JS only).
     */
    async "handshake-retry"(client, args) {
        // The first reply is the refusal: the promise of this one attempt fails, the client goes on by itself.
        client.handshake().catch(() => {});
        await client.signal.until(() => client.failedHandshakes.length > 0, Number(args.wait ?? 30000),
            "a refused handshake");
        process.stdout.write("INTEROP-REFUSED\n");
        await client.signal.until(() => client.handshakes > 0, Number(args.wait ?? 30000), "a successful handshake");
        const box = inbox();
        await within(client.subscribe(args.channel, box.listener), STEP_MS, "subscribe");
        process.stdout.write("INTEROP-SUBSCRIBED\n");
        await client.signal.until(() => box.messages.length > 0, Number(args.wait ?? 30000), "a message");
        const result = base(client, {failedHandshakes: client.failedHandshakes, received: box.messages});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /** Publishes a message of --size characters to a subscribed channel and gets it back. */
    async "large-send"(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const box = inbox();
        await within(client.subscribe("/big", box.listener), STEP_MS, "subscribe");
        let publishError = null;
        try {
            await within(client.publish("/big", {blob: blob(Number(args.size))}), STEP_MS, "publish");
            await client.signal.until(() => box.messages.length > 0, STEP_MS, "the message back");
        } catch (failure) {
            publishError = String(failure.message ?? failure);
        }
        const result = base(client, {publishError, received: summarize(box.messages)});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Publishes a message of --size characters, over the server's limit, then a small one: the first must be
     * refused, and the session must carry on (the next publish comes back). --publishOptions (JSON) go to the
     * client's publish (Faye: attempts, deadline), --refusalWait bounds the wait for the refusal.
     */
    async oversize(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const box = inbox();
        await within(client.subscribe("/o", box.listener), STEP_MS, "subscribe");
        let refusal = null;
        const publishOptions = args.publishOptions ? JSON.parse(args.publishOptions) : undefined;
        try {
            await within(client.publish("/o", {blob: blob(Number(args.size))}, publishOptions),
                Number(args.refusalWait ?? 5000), "the oversized publish");
        } catch (failure) {
            refusal = String(failure.message ?? failure);
        }
        await within(client.publish("/o", {n: 2}), STEP_MS, "the publish after it");
        await client.signal.until(() => box.messages.length > 0, STEP_MS, "the message back");
        const result = base(client, {refusal, received: summarize(box.messages)});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Subscribes to --channel and waits for --count messages, published by someone else (the JUnit side waits for
     * the subscription on the server before it publishes). Large strings are summarized in the result.
     */
    async receive(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const box = inbox();
        await within(client.subscribe(args.channel, box.listener), STEP_MS, "subscribe");
        const count = Number(args.count);
        await client.signal.until(() => box.messages.length >= count, Number(args.wait ?? 30000),
            `${count} messages`);
        const result = base(client, {received: summarize(box.messages)});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Publishes --count messages {from, seq, text, list} to --channel, each after the previous one's reply; text
     * and list hold what JSON encoders get wrong (non-ASCII, astral characters, escapes), the same as
     * CrossClientTest's.
     */
    async send(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const count = Number(args.count);
        for (let seq = 0; seq < count; seq++) {
            const data = {from: client.name, seq, text: TRICKY_TEXT, list: TRICKY_LIST};
            await within(client.publish(args.channel, data), STEP_MS, `publish ${seq}`);
        }
        const result = base(client, {sent: count});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Publishes --count messages {seq} to a subscribed channel and receives them. With --pace burst all are sent
     * without waiting; with --pace reply each is sent after the previous one's reply. Reports what tells loss,
     * duplication and reordering apart; the JUnit side decides which of them the server's settings guarantee.
     */
    async ordered(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const count = Number(args.count);
        const seqs = [];
        await within(client.subscribe("/seq", (channel, data) => seqs.push(data.seq)), STEP_MS, "subscribe");
        const wait = Number(args.wait ?? 30000);
        if (args.pace === "reply") {
            for (let seq = 0; seq < count; seq++) {
                await within(client.publish("/seq", {seq}), STEP_MS, `publish ${seq}`);
            }
        } else if (args.pace === "burst") {
            const replies = [];
            for (let seq = 0; seq < count; seq++) {
                replies.push(client.publish("/seq", {seq}));
            }
            await within(Promise.all(replies), wait, `${count} publish replies`);
        } else {
            throw new Error(`unknown --pace '${args.pace}'`);
        }
        await client.signal.until(() => seqs.length >= count, wait, `${count} messages`);
        const result = base(client, sequenceStats(seqs));
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * Subscribes to --channel and receives --count messages {seq} published by someone else (the JUnit side
     * waits for the subscription on the server, then publishes). Reports their sequence numbers' statistics.
     */
    async feed(client, args) {
        await within(client.handshake(), STEP_MS, "handshake");
        const count = Number(args.count);
        const seqs = [];
        await within(client.subscribe(args.channel, (channel, data) => seqs.push(data.seq)), STEP_MS, "subscribe");
        await client.signal.until(() => seqs.length >= count, Number(args.wait ?? 30000), `${count} messages`);
        const result = base(client, sequenceStats(seqs));
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    },

    /**
     * For failover tests: subscribes to every channel of --channels (comma-separated), prints "INTEROP-SUBSCRIBED",
     * then one line "INTEROP-SEQ {channel, from, seq, handshakes, clientId}" per message as it arrives (and, for Faye,
     * "INTEROP-TRANSPORT {state, handshakes, connects}" as its transport goes down and up), until a
     * message with data.end has come from each of --publishers publishers on every channel (or --wait ran out: the
     * result then says complete: false). The JUnit side counts lost, duplicated and reordered messages from the
     * lines, and re-handshakes and clientId changes from handshakes and clientIds (the line's and the result's).
     */
    async "receive-seq"(client, args) {
        const channels = String(args.channels).split(",");
        const publishers = Number(args.publishers);
        // Faye tells when it lost and found the server again: printed for the failure report.
        client.onTransport?.(state => process.stdout.write("INTEROP-TRANSPORT " + JSON.stringify({
            state, handshakes: client.handshakes, connects: client.connects}) + "\n"));
        await within(client.handshake(), STEP_MS, "handshake");
        const ends = new Map(channels.map(channel => [channel, new Set()]));
        const onMessage = (channel, data) => {
            if (data && data.end) {
                ends.get(channel)?.add(data.from);
                return;
            }
            const clientId = client.clientIds[client.clientIds.length - 1] ?? null;
            process.stdout.write("INTEROP-SEQ " + JSON.stringify({
                channel, from: data?.from ?? null, seq: data?.seq ?? null, handshakes: client.handshakes, clientId
            }) + "\n");
        };
        await within(Promise.all(channels.map(channel => client.subscribe(channel, onMessage))), STEP_MS,
            "subscribe");
        process.stdout.write("INTEROP-SUBSCRIBED\n");
        let complete = true;
        try {
            await client.signal.until(() => [...ends.values()].every(from => from.size >= publishers),
                Number(args.wait ?? 120000), "every publisher's end on every channel");
        } catch (timedOut) {
            complete = false;
        }
        const result = base(client, {complete});
        if (complete) {
            await within(client.disconnect(), STEP_MS, "disconnect").catch(() => {});
        }
        return result;
    },

    /** A remote call to /service/echo, answered by a server-side service (CometD JS only). */
    async "remote-call"(client) {
        await within(client.handshake(), STEP_MS, "handshake");
        const data = {question: "ping", n: 7};
        const answer = await within(client.remoteCall("echo", data), STEP_MS, "remote call");
        const result = base(client, {sent: data, answer: answer.data});
        await within(client.disconnect(), STEP_MS, "disconnect");
        return result;
    }
};
