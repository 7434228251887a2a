// The CometD JavaScript client (npm "cometd"), run on Node.js through the "cometd-nodejs-client" adapter, behind the
// small interface that the scenarios use. The client itself is used as shipped: only its public API and
// configuration options.
import {adapt} from "cometd-nodejs-client";
import {AckExtension, CometD} from "cometd";
import {deferred, Signal} from "./common.mjs";

// Installs XMLHttpRequest and WebSocket for the client; one cookie jar for the whole process.
adapt();

export class CometDJsClient {
    name = "cometd-js";
    /** Successful handshakes seen, first one included. */
    handshakes = 0;
    /** Every clientId the server gave this client, in order. */
    clientIds = [];
    /** The connectionType of every /meta/connect sent, to prove which transport carried the session. */
    connectionTypes = new Set();
    /** Successful /meta/connect replies seen. */
    connects = 0;
    /** The error and advice of every unsuccessful handshake reply, in order. */
    failedHandshakes = [];
    /** The ext of the last successful handshake reply. */
    handshakeExt = null;
    /** Re-checked by waiters whenever a handshake, a connect reply or a message arrives. */
    signal = new Signal();

    #cometd = new CometD();
    /** The transport chosen at the last handshake. */
    #transport = null;
    /** channel -> {listener, handle}, kept so that they can be subscribed again after a re-handshake. */
    #subscriptions = new Map();

    /**
     * @param {string} url the server's Bayeux endpoint
     * @param {string} transport "long-polling" or "websocket"
     * @param {object} options extra CometD configuration, e.g. {maxSendBayeuxMessageSize: ...}; {ack: true}
     *        registers CometD's ack extension instead
     */
    constructor(url, transport, options = {}) {
        const cometd = this.#cometd;
        const {ack, ...configuration} = options;
        if (ack) {
            cometd.registerExtension("ack", new AckExtension());
        }
        if (transport === "long-polling") {
            cometd.unregisterTransport("websocket");
        } else if (transport !== "websocket") {
            throw new Error(`unknown transport ${transport}`);
        }
        cometd.configure({url, logLevel: "warn", ...configuration});
        cometd.registerExtension("interop-observer", {
            outgoing: message => {
                if (message.channel === "/meta/connect") {
                    this.connectionTypes.add(message.connectionType);
                }
                return message;
            }
        });
        // The application's job in CometD: subscriptions do not survive a re-handshake, so make them again.
        cometd.addListener("/meta/handshake", message => {
            if (!message.successful) {
                this.failedHandshakes.push({error: message.error ?? null, advice: message.advice ?? null});
                this.signal.changed();
                return;
            }
            this.handshakes++;
            this.clientIds.push(message.clientId);
            this.handshakeExt = message.ext ?? null;
            this.#transport = cometd.getTransport().type;
            if (message.reestablish) {
                cometd.batch(() => {
                    for (const [channel, entry] of this.#subscriptions) {
                        entry.handle = cometd.subscribe(channel, entry.listener);
                    }
                });
            }
            this.signal.changed();
        });
        cometd.addListener("/meta/connect", message => {
            if (message.successful) {
                this.connects++;
                this.signal.changed();
            }
        });
    }

    /** @returns {Promise<string>} the clientId */
    handshake() {
        const reply = deferred();
        this.#cometd.handshake(message => {
            if (message.successful) {
                reply.resolve(message.clientId);
            } else {
                reply.reject(new Error(`handshake failed: ${JSON.stringify(message)}`));
            }
        });
        return reply.promise;
    }

    /** @returns {string} the transport the client chose at its last handshake */
    transportName() {
        return this.#transport;
    }

    /**
     * @param {string} channel
     * @param {(channel: string, data: *) => void} onMessage
     * @returns {Promise<object>} the subscribe reply
     */
    subscribe(channel, onMessage) {
        const reply = deferred();
        const listener = message => {
            onMessage(message.channel, message.data);
            this.signal.changed();
        };
        const handle = this.#cometd.subscribe(channel, listener, message => {
            if (message.successful) {
                reply.resolve(message);
            } else {
                reply.reject(new Error(`subscribe ${channel} failed: ${JSON.stringify(message)}`));
            }
        });
        this.#subscriptions.set(channel, {listener, handle});
        return reply.promise;
    }

    /**
     * @param {string} channel
     * @returns {Promise<object>} the unsubscribe reply
     */
    unsubscribe(channel) {
        const entry = this.#subscriptions.get(channel);
        this.#subscriptions.delete(channel);
        const reply = deferred();
        this.#cometd.unsubscribe(entry.handle, message => {
            if (message.successful) {
                reply.resolve(message);
            } else {
                reply.reject(new Error(`unsubscribe ${channel} failed: ${JSON.stringify(message)}`));
            }
        });
        return reply.promise;
    }

    /**
     * @param {string} channel
     * @param {*} data
     * @returns {Promise<object>} the publish reply
     */
    publish(channel, data) {
        const reply = deferred();
        try {
            this.#cometd.publish(channel, data, message => {
                if (message.successful) {
                    reply.resolve(message);
                } else {
                    reply.reject(new Error(`publish to ${channel} failed: ${JSON.stringify(message)}`));
                }
            });
        } catch (failure) {
            reply.reject(failure);
        }
        return reply.promise;
    }

    /**
     * @param {string} target the service name, sent to /service/target
     * @param {*} data
     * @returns {Promise<object>} the answer message
     */
    remoteCall(target, data) {
        const reply = deferred();
        this.#cometd.remoteCall(target, data, 5000, message => {
            if (message.successful) {
                reply.resolve(message);
            } else {
                reply.reject(new Error(`remote call ${target} failed: ${JSON.stringify(message)}`));
            }
        });
        return reply.promise;
    }

    /** @returns {Promise<object>} the disconnect reply */
    disconnect() {
        const reply = deferred();
        this.#cometd.disconnect(message => reply.resolve(message));
        return reply.promise;
    }

    /** @returns {string} the client's state, e.g. "disconnected" */
    status() {
        return this.#cometd.getStatus();
    }
}
