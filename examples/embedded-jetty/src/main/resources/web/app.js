// The page's client: the unmodified CometD JavaScript client, served by the application at /js/cometd/.
// ?transport=long-polling leaves WebSocket out; without it, CometD uses WebSocket.
import { CometD } from "./js/cometd/cometd.js";

const status = document.getElementById("status");
const log = document.getElementById("log");
const form = document.getElementById("send");
const input = document.getElementById("text");

function show(line) {
    const item = document.createElement("li");
    item.textContent = line;
    log.append(item);
}

const cometd = new CometD();
if (new URLSearchParams(location.search).get("transport") === "long-polling") {
    cometd.unregisterTransport("websocket");
}
cometd.configure({ url: new URL("cometd", location.href).href });

cometd.handshake(reply => {
    if (!reply.successful) {
        status.textContent = "handshake refused";
        return;
    }
    status.textContent = `connected (${cometd.getTransport().type})`;
    cometd.subscribe("/chat/room", message => show(`chat: ${message.data.text}`), subscribed => {
        if (!subscribed.successful) {
            status.textContent = "subscription refused";
            return;
        }
        cometd.remoteCall("echo", { text: "ping" }, 10000, answer => {
            show(answer.successful ? `echo: ${answer.data.echo.text}` : "echo failed");
        });
        cometd.publish("/chat/room", { text: `hello from the browser over ${cometd.getTransport().type}` });
    });
});

form.addEventListener("submit", event => {
    event.preventDefault();
    if (input.value) {
        cometd.publish("/chat/room", { text: input.value });
        input.value = "";
    }
});
