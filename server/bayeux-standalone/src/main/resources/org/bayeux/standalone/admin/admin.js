// The admin page: a bayeux-js-client session that gives the admin token in its handshake's ext and subscribes to the
// statistics channel, which the server lets only such sessions use. The page holds no figure of its own: every
// number comes in the snapshots the server delivers once a second. The token stays in this module's memory only.

import { BayeuxClient } from './bayeux-js-client/index.js';
import { LineChart, formatNumber } from './charts.js';

const CHANNEL = '/bayeux/admin/stats';
/** Where the page asks for the engine's text dump, which comes back on the same channel. */
const DUMP_CHANNEL = '/service/admin/dump';
const $ = (id) => document.getElementById(id);

/** @type {BayeuxClient | null} */
let client = null;
let everConnected = false;
/** Snapshots shown, on the body as data-snapshots (tests wait on it). */
let shown = 0;

const charts = {
  sessions: new LineChart($('chart-sessions'), [
    { name: 'all', color: '#1f6feb' }, { name: 'websocket', color: '#2e8b57' },
    { name: 'long-polling', color: '#d9822b' }]),
  rates: new LineChart($('chart-rates'), [
    { name: 'in', color: '#1f6feb' }, { name: 'out', color: '#2e8b57' },
    { name: 'deliveries', color: '#8e44ad' }]),
  latency: new LineChart($('chart-latency'), [
    { name: 'p50', color: '#2e8b57' }, { name: 'p90', color: '#d9822b' }, { name: 'p99', color: '#c0392b' }]),
  queues: new LineChart($('chart-queues'), [
    { name: 'queued', color: '#1f6feb' }, { name: 'longest', color: '#c0392b' }]),
};

$('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('token'));
  const token = input.value.trim();
  input.value = '';
  connect(token);
});

$('dump-button').addEventListener('click', () => {
  client?.publish(DUMP_CHANNEL, {});
});

function connect(token) {
  hideBanner();
  client = new BayeuxClient({ url: new URL('/bayeux', location.href).href, logLevel: 'warn' });
  client.addStatusListener((status) => {
    setStatus(status);
    if (status === 'connected') {
      everConnected = true;
    } else if (status === 'unconnected' && everConnected) {
      showBanner('Connection lost. Reconnecting…');
    }
  });
  // The client handshakes again with the same fields after losing its session, and subscribes again by itself.
  client.handshake({ ext: { admin: { token } } }).then((reply) => {
    if (!reply.successful) {
      refused(`The server refused the token (${reply.error ?? 'handshake failed'}).`);
      return;
    }
    client.addListener(DUMP_CHANNEL, (message) => {
      $('dump').textContent = typeof message.data?.dump === 'string' ? message.data.dump : '';
    });
    const subscription = client.subscribe(CHANNEL, (message) => show(message.data));
    subscription.ready.then((answer) => {
      if (!answer.successful) {
        refused(`The server refused the statistics channel (${answer.error}).`);
      }
    });
  });
}

function refused(text) {
  client?.disconnect();
  client = null;
  setStatus('refused');
  showBanner(text);
  $('login').hidden = false;
  $('dashboard').hidden = true;
}

function setStatus(status) {
  $('status').textContent = status;
  $('status').dataset.status = status;
}

function showBanner(text) {
  $('banner').textContent = text;
  $('banner').hidden = false;
}

function hideBanner() {
  $('banner').hidden = true;
}

/** Shows one snapshot: tiles, charts, tables. Text goes in with textContent only (channel names are anyone's). */
function show(stats) {
  if (!stats || typeof stats !== 'object') return;
  $('login').hidden = true;
  $('dashboard').hidden = false;
  hideBanner();
  $('updated').textContent = `updated ${new Date(stats.time).toLocaleTimeString()}`;
  const latency = stats.latency ?? {};
  tile('stat-sessions', stats.sessions.total);
  tile('stat-in', stats.rates.messagesIn);
  tile('stat-out', stats.rates.messagesOut);
  tile('stat-deliveries', stats.rates.deliveries);
  tile('stat-p99', latency.p99);
  tile('stat-queued', stats.queues.messages);
  tile('stat-channels', stats.channels);
  tile('stat-subscriptions', stats.subscriptions);
  charts.sessions.push(stats.time, [stats.sessions.total, stats.sessions.websocket, stats.sessions['long-polling']]);
  charts.rates.push(stats.time, [stats.rates.messagesIn, stats.rates.messagesOut, stats.rates.deliveries]);
  charts.latency.push(stats.time, [latency.p50 ?? null, latency.p90 ?? null, latency.p99 ?? null]);
  charts.queues.push(stats.time, [stats.queues.messages, stats.queues.longest]);
  rows('busiest', (stats.busiest ?? []).map((row) => [row.channel, row.messages, row.rate]));
  rows('transports', Object.entries(stats.sessions).filter(([name]) => name !== 'total'));
  rows('depths', Object.entries(stats.queues.depth ?? {}));
  cluster(stats.cluster);
  document.body.dataset.snapshots = String(++shown);
}

function tile(id, value) {
  $(id).textContent = value == null ? '–' : formatNumber(value);
}

function rows(tableId, data) {
  const body = $(tableId).querySelector('tbody');
  body.replaceChildren(...data.map((cells) => {
    const tr = document.createElement('tr');
    for (const cell of cells) {
      const td = document.createElement('td');
      td.textContent = cell == null ? '–' : String(cell);
      tr.append(td);
    }
    return tr;
  }));
}

function cluster(view) {
  $('cluster').hidden = !view;
  if (!view) return;
  $('cluster-kind').textContent = view.kind === 'oort' ? '(Oort)' : view.kind === 'redis' ? '(Redis backplane)' : '';
  const parts = [`this node: ${view.self ?? '?'}`, view.available ? 'available' : 'UNAVAILABLE'];
  if (view.kind === 'redis') parts.push(view.connected ? 'connected to Redis' : 'not connected to Redis');
  $('cluster-state').textContent = parts.join(' · ');
  rows('nodes', (view.nodes ?? []).map((node) => [node.url, node.joined ? `${node.state} (joined)` : node.state,
    node.roundTripMs == null ? null : Math.round(node.roundTripMs * 10) / 10, node.queued]));
}
