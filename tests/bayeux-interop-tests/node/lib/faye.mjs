// The Faye client for Node.js (npm "faye") behind the small interface that the scenarios use. The client is used
// as shipped, through its public API and an observing extension.
import faye from "faye";
import {deferred, Signal} from "./common.mjs";

export class FayeClient {
    name = "faye";
    /** Successful handshakes seen, first one included. */
    handshakes = 0;
    /** Every clientId the server gave this client, in order. */
    clientIds = [];
    /**
     * The connectionType of every /meta/connect sent, in order, a repeat of the previous one left out: Faye's upgrade
     * from long-polling to WebSocket shows as two entries, a fall-back after it as a third.
     */
    connectionTypes = new TransportRuns();
    /** Successful /meta/connect replies seen. */
    connects = 0;
    /** Re-checked by waiters whenever a handshake, a reply or a message arrives. */
    signal = new Signal();

    #client;
    #transport;
    /** channel -> Faye subscription */
    #subscriptions = new Map();
    /** Replies to /meta/unsubscribe seen, by subscription channel: Faye's API gives no callback for them. */
    #unsubscribeReplies = new Map();

    /**
     * @param {string} url the server's Bayeux endpoint
     * @param {string} transport "long-polling" or "websocket"
     * @param {object} options extra Faye client options, e.g. {retry: 1}
     */
    constructor(url, transport, options = {}) {
        this.#client = new faye.Client(url, options);
        this.#transport = transport;
        if (transport === "long-polling") {
            this.#client.disable("websocket");
        } else if (transport !== "websocket") {
            throw new Error(`unknown transport ${transport}`);
        }
        this.#client.addExtension({
            outgoing: (message, callback) => {
                if (message.channel === "/meta/connect") {
                    this.connectionTypes.add(message.connectionType);
                }
                callback(message);
            },
            incoming: (message, callback) => {
                if (message.channel === "/meta/handshake" && message.successful) {
                    this.handshakes++;
                    this.clientIds.push(message.clientId);
                } else if (message.channel === "/meta/connect" && message.successful) {
                    this.connects++;
                } else if (message.channel === "/meta/unsubscribe") {
                    for (const channel of [].concat(message.subscription)) {
                        this.#unsubscribeReplies.set(channel, message);
                    }
                }
                callback(message);
                this.signal.changed();
            }
        });
    }

    /**
     * Faye handshakes over long-polling and moves to WebSocket once its probe of the server succeeds, which on a busy
     * machine may take a connect or two: asked for WebSocket, this waits until a connect went over it, so that the
     * scenario runs over WebSocket.
     * @returns {Promise<string>} the clientId, once the handshake and a connect over the transport asked for went through
     */
    async handshake() {
        const done = deferred();
        this.#client.connect(() => done.resolve(this.clientIds[this.clientIds.length - 1]));
        const clientId = await done.promise;
        if (this.#transport === "websocket") {
            // Faye moves only between connects, and the interop server holds each connect for 5 s: 10 s allowed just
            // two of them, which a loaded machine overran once (the probe finished after the second connect had
            // been sent). Six connects' worth bounds the wait without timing the move.
            await this.signal.until(() => this.transportName() === "websocket" && this.connects > 0, 30000,
                "Faye's move to WebSocket");
        }
        return clientId;
    }

    /** @param {(state: string) => void} listener told "down" and "up" as Faye's transport:down/up events come */
    onTransport(listener) {
        this.#client.on("transport:down", () => listener("down"));
        this.#client.on("transport:up", () => listener("up"));
    }

    /** @returns {string} the transport in use, as told by the last connect sent */
    transportName() {
        return [...this.connectionTypes].pop();
    }

    /**
     * Faye subscribes again by itself after a re-handshake.
     * @param {string} channel
     * @param {(channel: string, data: *) => void} onMessage
     * @returns {Promise<void>} settled by the subscribe reply
     */
    subscribe(channel, onMessage) {
        const subscription = this.#client.subscribe(channel).withChannel((name, data) => {
            onMessage(name, data);
            this.signal.changed();
        });
        this.#subscriptions.set(channel, subscription);
        return new Promise((resolve, reject) => subscription.then(resolve, reject));
    }

    /**
     * @param {string} channel
     * @returns {Promise<object>} the unsubscribe reply
     */
    async unsubscribe(channel) {
        this.#unsubscribeReplies.delete(channel);
        this.#subscriptions.get(channel).cancel();
        this.#subscriptions.delete(channel);
        await this.signal.until(() => this.#unsubscribeReplies.has(channel), 10000, `unsubscribe reply for ${channel}`);
        const reply = this.#unsubscribeReplies.get(channel);
        if (!reply.successful) {
            throw new Error(`unsubscribe ${channel} failed: ${JSON.stringify(reply)}`);
        }
        return reply;
    }

    /**
     * @param {string} channel
     * @param {*} data
     * @param {object} [options] Faye's publish options: attempts, deadline
     * @returns {Promise<void>} settled by the publish reply
     */
    publish(channel, data, options) {
        const publication = this.#client.publish(channel, data, options);
        return new Promise((resolve, reject) => publication.then(resolve, reject));
    }

    /** @returns {Promise<void>} settled by the disconnect reply; at once if the client is not connected */
    disconnect() {
        const publication = this.#client.disconnect();
        if (!publication) {
            return Promise.resolve();
        }
        return new Promise((resolve, reject) => publication.then(resolve, reject));
    }
}

/** A list that skips an entry equal to the last one; iterable like the Set the other adapter uses. */
class TransportRuns {
    #runs = [];

    add(type) {
        if (this.#runs[this.#runs.length - 1] !== type) {
            this.#runs.push(type);
        }
    }

    [Symbol.iterator]() {
        return this.#runs[Symbol.iterator]();
    }
}
