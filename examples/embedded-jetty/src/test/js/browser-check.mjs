// Opens the chat page in Chromium (through playwright-core, found at $PLAYWRIGHT_CORE) and waits until the page shows
// the echo service's answer and its own chat message, as delivered back by the server.
// Usage: node browser-check.mjs PAGE_URL TRANSPORT; prints the page's log lines; exits 0 when both are shown.
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pageUrl, transport] = process.argv.slice(2);
const core = process.env.PLAYWRIGHT_CORE;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const { chromium } = await import(pathToFileURL(path.join(core, "index.mjs")).href);

const browser = await chromium.launch({ executablePath, headless: true });
try {
    const page = await browser.newPage();
    page.on("pageerror", error => console.log(`page error: ${error.message}`));
    page.on("console", message => console.log(`console ${message.type()}: ${message.text()}`));
    page.on("response", response => {
        if (response.status() >= 400) {
            console.log(`response ${response.status()}: ${response.url()}`);
        }
    });
    await page.goto(`${pageUrl}?transport=${transport}`);
    const expected = ["echo: ping", `chat: hello from the browser over ${transport}`];
    try {
        await page.waitForFunction(
            lines => lines.every(line => [...document.querySelectorAll("#log li")].some(li => li.textContent === line)),
            expected, { timeout: 60000 });
    } finally {
        console.log(`status: ${await page.textContent("#status")}`);
        for (const line of await page.$$eval("#log li", items => items.map(item => item.textContent))) {
            console.log(`log: ${line}`);
        }
    }
} finally {
    await browser.close();
}
