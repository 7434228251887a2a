// Helpers shared by the client adapters and the scenarios: argument parsing, the result line, bounded waits.
import {createHash} from "node:crypto";

/** The prefix of the one line the JUnit side reads; the clients' own logging may share stdout. */
export const RESULT_PREFIX = "INTEROP-RESULT ";

/**
 * Parses "--name value" pairs.
 * @param {string[]} argv the arguments after the script name
 * @returns {Record<string, string>}
 */
export function parseArgs(argv) {
    const args = {};
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (!arg.startsWith("--") || i + 1 >= argv.length) {
            throw new Error(`bad argument '${arg}': expected --name value`);
        }
        args[arg.slice(2)] = argv[++i];
    }
    return args;
}

/**
 * Prints the result line and ends the process once stdout is flushed.
 * @param {object} result what the scenario found
 * @param {number} code the exit code
 */
export function finish(result, code) {
    process.stdout.write(RESULT_PREFIX + JSON.stringify(result) + "\n", () => process.exit(code));
}

/** A promise with its resolve and reject functions outside. */
export function deferred() {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
    });
    return {promise, resolve, reject};
}

/**
 * Waits until a condition holds; it is checked whenever {@link Signal#changed} is called.
 */
export class Signal {
    #waiters = [];

    /** Re-checks every waiter's condition. */
    changed() {
        this.#waiters = this.#waiters.filter(waiter => {
            if (waiter.condition()) {
                clearTimeout(waiter.timer);
                waiter.resolve();
                return false;
            }
            return true;
        });
    }

    /**
     * @param {() => boolean} condition
     * @param {number} timeoutMs how long to wait at most
     * @param {string} what the condition, for the error on time-out
     * @returns {Promise<void>}
     */
    until(condition, timeoutMs, what) {
        if (condition()) {
            return Promise.resolve();
        }
        return new Promise((resolve, reject) => {
            const waiter = {condition, resolve};
            waiter.timer = setTimeout(() => {
                this.#waiters = this.#waiters.filter(w => w !== waiter);
                reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
            }, timeoutMs);
            this.#waiters.push(waiter);
        });
    }
}

/**
 * Bounds a promise in time.
 * @param {Promise<T>} promise
 * @param {number} timeoutMs
 * @param {string} what the operation, for the error on time-out
 * @returns {Promise<T>}
 * @template T
 */
export function within(promise, timeoutMs, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms: ${what}`)), timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A string of the given length, the same for the same length on every platform, so that the JUnit side can
 * build the expected value: the characters cycle through "a" to "z".
 * @param {number} length
 */
export function blob(length) {
    let text = "";
    const alphabet = "abcdefghijklmnopqrstuvwxyz";
    while (text.length < length) {
        text += alphabet;
    }
    return text.slice(0, length);
}

/**
 * Copies JSON data, replacing each string longer than 256 characters by "sha256:<hex>:<length>", so that a
 * result line stays short and the JUnit side can still check a large payload exactly.
 * @param {*} data
 */
export function summarize(data) {
    if (typeof data === "string") {
        if (data.length <= 256) {
            return data;
        }
        const hash = createHash("sha256").update(data, "utf8").digest("hex");
        return `sha256:${hash}:${data.length}`;
    }
    if (Array.isArray(data)) {
        return data.map(summarize);
    }
    if (data !== null && typeof data === "object") {
        const copy = {};
        for (const [key, value] of Object.entries(data)) {
            copy[key] = summarize(value);
        }
        return copy;
    }
    return data;
}
