// The demo chat: a page using bayeux-js-client as any application would.
//
// Protocol (see ChatService on the server): the name travels in the handshake's ext; subscribing to
// /chat/room/<room> joins the room, and the service publishes the member list there after every change, with a
// version: two lists published at once may arrive in either order, so the page keeps the newest; private messages
// go through the /service/chat/private remote call and arrive on /chat/private. Messages carry the server's time
// and an id; whoever joins a room gets its last messages in one {type: "history"} (a reloaded page, whose session is
// still in its rooms, asks with /service/chat/history); the ids keep a message from showing twice.
//
// URL options: ?transports=long-polling (or a comma-separated list) to force transports; ?log=debug.

import { AckExtension, BayeuxClient, ReloadExtension } from './bayeux-js-client/index.js';

const MAX_MESSAGES_PER_ROOM = 200;
const STATE_KEY = 'chat.state';
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

const client = new BayeuxClient({
  url: new URL('/bayeux', location.href).href,
  transports: params.get('transports')?.split(',').filter(Boolean) || undefined,
  logLevel: params.get('log') || 'warn',
});
client.registerExtension('ack', new AckExtension());
// Keeps the session (and its rooms) when the page reloads.
client.registerExtension('reload', new ReloadExtension());

/** @type {{name: string | null, rooms: string[], current: string | null}} */
const state = loadState();
/**
 * room → {subscription, messages: Node[], seen: Set<string> (ids of the messages shown), members: string[],
 * membersVersion: number, unread: number}
 */
const rooms = new Map();

// --------------------------------------------------------------------------------------------- connection state

let everConnected = false;
let bannerTimer;
client.addStatusListener((status, previous) => {
  const pill = $('status');
  pill.textContent = status;
  pill.dataset.status = status;
  pill.hidden = false;
  $('transport').textContent = client.getTransport() ? `over ${client.getTransport()}` : '';
  $('session').textContent = client.getClientId() ?? '';
  if (status === 'unconnected' || (status === 'rehandshaking' && everConnected)) {
    showBanner('Connection lost. Reconnecting…', false);
  } else if (status === 'connected') {
    if (everConnected && (previous === 'unconnected' || previous === 'rehandshaking')) {
      showBanner('Reconnected.', true);
      systemLine('Reconnected to the server.');
    }
    everConnected = true;
  } else if (status === 'disconnected' && state.name) {
    showBanner('Disconnected.', false);
  }
});

client.addListener('/meta/handshake', (reply) => {
  $('session').textContent = client.getClientId() ?? '';
  if (reply.successful) {
    // A new session, maybe on a restarted server whose versions start again.
    for (const entry of rooms.values()) {
      entry.membersVersion = -1;
    }
  }
  if (reply.successful && reply.reestablish) {
    // The server lost our session (a restart): the client has subscribed to our rooms again by itself, which
    // puts us back in their member lists.
    systemLine('The server had forgotten this session; a new one took over your rooms.');
  }
});

function showBanner(text, ok) {
  const banner = $('banner');
  banner.textContent = text;
  banner.classList.toggle('ok', ok);
  banner.hidden = false;
  clearTimeout(bannerTimer);
  if (ok) {
    bannerTimer = setTimeout(() => { banner.hidden = true; }, 3000);
  }
}

// -------------------------------------------------------------------------------------------------------- login

$('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const name = $('name').value.trim();
  if (name) {
    state.name = name;
    if (state.rooms.length === 0) {
      state.rooms = ['lobby'];
      state.current = 'lobby';
    }
    saveState();
    enter();
  }
});

$('logout').addEventListener('click', async () => {
  state.name = null;
  state.rooms = [];
  state.current = null;
  saveState();
  await client.disconnect();
  rooms.clear();
  location.reload();
});

async function enter() {
  $('login').hidden = true;
  $('chat').hidden = false;
  $('footer').hidden = false;
  $('me').textContent = state.name;
  const reply = await client.handshake({ ext: { chat: { name: state.name } } });
  if (!reply.successful) {
    systemLine(`Could not reach the server (${reply.error}); retrying.`);
  }
  for (const room of state.rooms) {
    join(room);
  }
  show(state.current ?? state.rooms[0]);
}

// -------------------------------------------------------------------------------------------------------- rooms

function join(room) {
  if (rooms.has(room)) {
    return;
  }
  const entry = { subscription: null, messages: [], seen: new Set(), members: [], membersVersion: -1, unread: 0 };
  rooms.set(room, entry);
  entry.subscription = client.subscribe(`/chat/room/${room}`, (message) => onRoomMessage(room, message));
  entry.subscription.ready.then(async (reply) => {
    if (!reply.successful) {
      systemLine(`Could not join ${room}: ${reply.error}`, room);
      return;
    }
    // After a reload the session is already in the room, so no member update comes by itself: ask.
    const answer = await client.remoteCall('chat/members', { room });
    if (answer.successful) {
      setMembers(room, answer.data);
    }
    if (resumed) {
      // Nor does its history: ask (the ids drop what was delivered anyway).
      const earlier = await client.remoteCall('chat/history', { room });
      if (earlier.successful) {
        addHistory(room, earlier.data);
      }
    }
  });
  if (!state.rooms.includes(room)) {
    state.rooms.push(room);
    saveState();
  }
  renderRooms();
}

function leave(room) {
  const entry = rooms.get(room);
  if (!entry) {
    return;
  }
  client.unsubscribe(entry.subscription);
  rooms.delete(room);
  state.rooms = state.rooms.filter((r) => r !== room);
  if (state.current === room) {
    state.current = state.rooms[0] ?? null;
  }
  saveState();
  show(state.current);
}

function show(room) {
  state.current = room;
  saveState();
  const entry = room ? rooms.get(room) : null;
  if (entry) {
    entry.unread = 0;
  }
  $('room-title').textContent = room ? `# ${room}` : 'No room';
  $('messages').replaceChildren(...(entry ? entry.messages : []));
  scrollToEnd();
  renderRooms();
  renderMembers();
}

$('join-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('room-name');
  const room = input.value.trim();
  if (/^[A-Za-z0-9_-]{1,40}$/.test(room)) {
    join(room);
    show(room);
    input.value = '';
  }
});

function renderRooms() {
  const items = [...rooms.keys()].map((room) => {
    const li = document.createElement('li');
    li.dataset.room = room;
    li.classList.toggle('current', room === state.current);
    const open = document.createElement('button');
    open.className = 'room';
    open.type = 'button';
    open.textContent = `# ${room}`;
    open.addEventListener('click', () => show(room));
    li.append(open);
    const unread = rooms.get(room).unread;
    if (unread > 0) {
      const badge = document.createElement('span');
      badge.className = 'unread';
      badge.textContent = String(unread);
      li.append(badge);
    }
    const close = document.createElement('button');
    close.className = 'leave';
    close.type = 'button';
    close.title = `Leave ${room}`;
    close.textContent = '×';
    close.addEventListener('click', () => leave(room));
    li.append(close);
    return li;
  });
  $('room-list').replaceChildren(...items);
}

// ----------------------------------------------------------------------------------------------------- messages

function onRoomMessage(room, message) {
  const data = message.data ?? {};
  if (data.type === 'members') {
    setMembers(room, data);
  } else if (data.type === 'message') {
    addMessage(room, data, 'message');
  } else if (data.type === 'history') {
    addHistory(room, data);
  }
}

/** The room's last messages, oldest first, from before this page joined. */
function addHistory(room, { messages }) {
  if (Array.isArray(messages)) {
    for (const data of messages) {
      addMessage(room, data, 'message history');
    }
  }
}

function addMessage(room, data, kind) {
  const entry = rooms.get(room);
  if (!entry || (typeof data.id === 'string' && entry.seen.has(data.id))) {
    return;
  }
  if (typeof data.id === 'string') {
    entry.seen.add(data.id);
    if (entry.seen.size > 4 * MAX_MESSAGES_PER_ROOM) {
      // Bounded: the oldest ids are of messages no history will bring again.
      entry.seen.delete(entry.seen.values().next().value);
    }
  }
  addLine(room, line(kind, data.from, data.text, data.time));
}

client.addListener('/chat/private', (message) => {
  const { from, text, time } = message.data ?? {};
  addLine(state.current, line('private', `${from} (to you)`, text, time));
});

$('send-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = $('text');
  const text = input.value.trim();
  const room = state.current;
  if (!text || !room) {
    return;
  }
  input.value = '';
  const direct = /^\/msg\s+(\S+)\s+([\s\S]+)$/.exec(text);
  if (direct) {
    const [, to, body] = direct;
    const answer = await client.remoteCall('chat/private', { to, text: body });
    if (answer.successful && answer.data.delivered > 0) {
      addLine(room, line('private', `you (to ${to})`, body, Date.now()));
    } else {
      systemLine(answer.successful ? `Nobody called ${to} is here.` : `Not sent: ${answer.error}`, room);
    }
    return;
  }
  const reply = await client.publish(`/chat/room/${room}`, { text });
  if (!reply.successful) {
    systemLine(`Not sent (${reply.error}): ${text}`, room);
  }
});

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

function line(kind, from, text, time) {
  const li = document.createElement('li');
  li.className = kind;
  li.dataset.from = from;
  if (Number.isFinite(time)) {
    // The server's clock: the same time for everyone; shown in the reader's zone, the full date on hover.
    const when = new Date(time);
    const stamp = document.createElement('time');
    stamp.className = 'time';
    stamp.dateTime = when.toISOString();
    stamp.title = day.format(when);
    stamp.textContent = clock.format(when);
    li.append(stamp);
  }
  const who = document.createElement('span');
  who.className = 'from';
  who.textContent = from;
  const what = document.createElement('span');
  what.className = 'text';
  what.textContent = text;
  li.append(who, what);
  return li;
}

function systemLine(text, room = state.current) {
  const li = document.createElement('li');
  li.className = 'system';
  li.textContent = text;
  addLine(room, li);
}

function addLine(room, li) {
  const entry = room ? rooms.get(room) : null;
  if (!entry) {
    return;
  }
  entry.messages.push(li);
  if (entry.messages.length > MAX_MESSAGES_PER_ROOM) {
    entry.messages.shift().remove();
  }
  if (li.classList.contains('history')) {
    // Old news: shown, never counted as unread.
    if (room === state.current) {
      $('messages').append(li);
      scrollToEnd();
    }
    return;
  }
  if (room === state.current) {
    $('messages').append(li);
    scrollToEnd();
  } else {
    entry.unread++;
    renderRooms();
  }
}

function scrollToEnd() {
  const list = $('messages');
  list.scrollTop = list.scrollHeight;
}

// ------------------------------------------------------------------------------------------------------ members

/** @param {{members: string[], version: number}} update a member list and its version */
function setMembers(room, { members, version }) {
  const entry = rooms.get(room);
  if (entry && Array.isArray(members) && Number.isInteger(version) && version >= entry.membersVersion) {
    entry.members = members;
    entry.membersVersion = version;
    if (room === state.current) {
      renderMembers();
    }
  }
}

function renderMembers() {
  const entry = state.current ? rooms.get(state.current) : null;
  const items = (entry ? entry.members : []).map((name) => {
    const li = document.createElement('li');
    li.textContent = name;
    if (name === state.name) {
      li.classList.add('me');
      li.textContent = `${name} (you)`;
    } else {
      li.title = `Write to ${name} only`;
      li.addEventListener('click', () => {
        $('text').value = `/msg ${name} `;
        $('text').focus();
      });
    }
    return li;
  });
  $('member-list').replaceChildren(...items);
}

// -------------------------------------------------------------------------------------------------------- state

function loadState() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STATE_KEY) ?? 'null');
    if (saved && typeof saved.name === 'string' && Array.isArray(saved.rooms)) {
      return saved;
    }
  } catch {
    // A damaged or forbidden storage: start afresh.
  }
  return { name: null, rooms: [], current: null };
}

function saveState() {
  try {
    sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
  } catch {
    // Without storage a reload asks for the name again; nothing else is lost.
  }
}

// A page reloaded after entering: the reload extension resumes its session, already in its rooms.
const resumed = Boolean(state.name);
if (state.name) {
  $('name').value = state.name;
  enter();
}
