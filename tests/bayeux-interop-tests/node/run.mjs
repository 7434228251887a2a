// Runs one scenario with one client against a Bayeux server and prints one result line:
//   node run.mjs --client cometd-js|faye --url http://127.0.0.1:PORT/bayeux --transport long-polling
//                --scenario NAME [--timeout MS] [--options JSON] [scenario arguments such as --channel, --count]
// The line starts with "INTEROP-RESULT " and holds {"ok":true,...} or {"ok":false,"error":...}.
import {finish, parseArgs} from "./lib/common.mjs";
import {scenarios} from "./lib/scenarios.mjs";

const args = parseArgs(process.argv.slice(2));
const timeoutMs = Number(args.timeout ?? 60000);
const guard = setTimeout(() => finish({ok: false, error: `scenario still running after ${timeoutMs} ms`}, 2),
    timeoutMs);

try {
    const scenario = scenarios[args.scenario];
    if (!scenario) {
        throw new Error(`unknown scenario '${args.scenario}'; known: ${Object.keys(scenarios).join(", ")}`);
    }
    const options = args.options ? JSON.parse(args.options) : {};
    let client;
    if (args.client === "cometd-js") {
        const {CometDJsClient} = await import("./lib/cometd-js.mjs");
        client = new CometDJsClient(args.url, args.transport, options);
    } else if (args.client === "faye") {
        const {FayeClient} = await import("./lib/faye.mjs");
        client = new FayeClient(args.url, args.transport, options);
    } else {
        throw new Error(`unknown client '${args.client}'`);
    }
    const result = await scenario(client, args);
    clearTimeout(guard);
    finish({ok: true, ...result}, 0);
} catch (failure) {
    clearTimeout(guard);
    finish({ok: false, error: String(failure && failure.stack ? failure.stack : failure)}, 1);
}
