// The sandbox page: a client of the sandbox's routes only. It renders the workspace state (re-read on
// every server-sent change) and sends what the person does to /sandbox/*, where the driver turns it into
// exactly what Slack would send the bot.
import { escapeHtml, renderBlocks } from '/web/render.js';

const $ = (id) => document.getElementById(id);
const ui = {
  user: localStorage.getItem('sandbox.user') ?? 'U0ALICE',
  channel: localStorage.getItem('sandbox.channel') ?? 'C0AGENTS',
  home: false,
  // The DM with the bot (its Messages tab) is shown instead of a channel.
  dm: false,
  // Where the composer writes: a thread of the current conversation, or the conversation itself.
  replyTo: undefined,
  state: undefined,
  viewErrors: {},
  drafts: {},
};

function toast(text) {
  const el = $('toast');
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!json.ok) toast(json.error ?? `${path} failed`);
  return json.result;
}

const context = (container, errors) => {
  const s = ui.state;
  return {
    users: Object.fromEntries(s.users.map((u) => [u.id, u.profile?.display_name || u.name])),
    channels: Object.fromEntries(s.channels.map((c) => [c.id, c.name])),
    container,
    ...(errors ? { errors } : {}),
  };
};

const time = (ts) =>
  new Date(Number(ts) * 1000).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });

function authorOf(message) {
  if (message.bot_id) return 'agents <small>APP</small>';
  const user = ui.state.users.find((u) => u.id === message.user);
  return escapeHtml(user?.real_name ?? message.user ?? 'someone');
}

function renderFiles(files) {
  return (files ?? [])
    .map((f) => {
      const preview = ui.state.files.find((x) => x.id === f.id)?.preview ?? '';
      return `<div class="file" data-testid="file">📎 <strong>${escapeHtml(f.title ?? f.name)}</strong> · ${f.size ?? '?'} bytes<pre>${escapeHtml(preview)}…</pre></div>`;
    })
    .join('');
}

// Emoji names Slack shows as pictures; any other name shows as :name:.
const EMOJI = {
  eyes: '👀',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  warning: '⚠️',
  x: '❌',
  thumbsup: '👍',
  '+1': '👍',
  thumbsdown: '👎',
  '-1': '👎',
  hourglass_flowing_sand: '⏳',
  tada: '🎉',
  rocket: '🚀',
  arrows_counterclockwise: '🔄',
};

function renderReactions(message) {
  if (!message.reactions?.length) return '';
  const names = (ids) => ids.map((id) => ui.state.users.find((u) => u.id === id)?.name ?? id).join(', ');
  return `<div class="reactions">${message.reactions
    .map(
      (r) =>
        `<span class="reaction" data-testid="reaction" data-name="${escapeHtml(r.name)}" title="${escapeHtml(`:${r.name}: by ${names(r.users)}`)}">${EMOJI[r.name] ?? `:${escapeHtml(r.name)}:`} ${r.count}</span>`,
    )
    .join('')}</div>`;
}

function renderMessage(message, channel, extraClass = message.subtype ? 'system' : '') {
  const ctx = context({ kind: 'message', channel, ts: message.ts });
  const label = extraClass === 'ephemeral' ? '<div class="ephemeral-label">Only visible to you</div>' : '';
  return `<div class="message ${extraClass}" data-ts="${message.ts}" data-testid="message">${label}
    <div class="meta"><strong>${authorOf(message)}</strong> ${time(message.ts)}${message.edited ? ' <span class="edited">(edited)</span>' : ''}</div>
    ${renderBlocks(message.blocks, ctx, message.text ?? '')}${renderFiles(message.files)}${renderReactions(message)}
  </div>`;
}

// Who is in the channel (conversations.members answers the same); /join, /leave and /invite @name change it.
function membersLine(channel) {
  const members = channel.members ?? [];
  const count = `${members.length} member${members.length === 1 ? '' : 's'}`;
  if (members.includes(ui.user)) return count;
  return `${count} · you are not in it (${channel.is_private ? 'someone in it can /invite you' : '/join'})`;
}

// The DM between the person acting and the bot: Slack's im channel, D + the user id's rest.
const dmId = () => `D${ui.user.slice(1)}`;

function renderChannel() {
  const s = ui.state;
  const channel = ui.dm
    ? (s.channels.find((c) => c.id === dmId()) ?? { id: dmId(), name: 'agents', is_im: true, messages: [] })
    : (s.channels.find((c) => c.id === ui.channel) ?? s.channels[0]);
  $('channel-header').textContent = ui.dm
    ? '🤖 agents · Messages'
    : `${channel.is_private ? '🔒' : '#'} ${channel.name} · ${membersLine(channel)}`;
  $('reply-chip').hidden = !ui.replyTo;
  $('composer').placeholder = ui.replyTo
    ? 'Reply in the thread (mention with @agents)'
    : ui.dm
      ? 'Message agents'
      : '@agents <goal>, a message, or /agent start scenario:approval ship the release notes';
  const top = channel.messages.filter((m) => !m.thread_ts || m.thread_ts === m.ts);
  const mine = s.ephemerals.filter((e) => e.user === ui.user && e.channel === channel.id);
  const items = [
    ...top.map((m) => ({ ts: m.ts, html: renderThreaded(m, channel) })),
    ...mine
      .filter((e) => !e.thread_ts)
      .map((e) => ({
        ts: e.ts,
        html: renderMessage({ ...e, bot_id: 'B' }, channel.id, 'ephemeral'),
      })),
  ].sort((a, b) => Number(a.ts) - Number(b.ts));
  const box = $('messages');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 60;
  box.innerHTML =
    items.map((i) => i.html).join('') ||
    (ui.dm
      ? '<p class="hint">Write to the bot here: a message starts a session.</p>'
      : '<p class="hint">No messages yet. Type <code>/agent help</code> below.</p>');
  // Ticked but not yet submitted: keep the person's picks across re-renders.
  for (const [key, values] of Object.entries(ui.drafts)) {
    const [ts, action] = key.split('|');
    const holder = box.querySelector(`[data-ts="${ts}"][data-action="${action}"]`);
    if (holder) setValue(holder, values);
  }
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function renderThreaded(parent, channel) {
  const replies = channel.messages.filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts);
  const ephemerals = ui.state.ephemerals.filter(
    (e) => e.user === ui.user && e.channel === channel.id && e.thread_ts === parent.ts,
  );
  const thread = [
    ...replies.map((m) => ({ ts: m.ts, html: renderMessage(m, channel.id) })),
    ...ephemerals.map((e) => ({
      ts: e.ts,
      html: renderMessage({ ...e, bot_id: 'B' }, channel.id, 'ephemeral'),
    })),
  ]
    .sort((a, b) => Number(a.ts) - Number(b.ts))
    .map((x) => x.html)
    .join('');
  const replying = ui.replyTo?.ts === parent.ts;
  const reply = parent.subtype
    ? ''
    : `<button type="button" class="reply-link${replying ? ' active' : ''}" data-reply-ts="${parent.ts}" data-testid="reply-in-thread">${replying ? 'Replying in this thread' : 'Reply in thread'}</button>`;
  return `<div class="conversation${replying ? ' replying' : ''}" data-testid="conversation">${renderMessage(parent, channel.id)}${
    thread ? `<div class="thread" data-testid="thread">${thread}</div>` : ''
  }${reply}</div>`;
}

function renderHome() {
  const s = ui.state;
  $('channel-header').textContent = '🤖 agents · Home';
  const view = s.views.find((v) => v.type === 'home' && v.user === ui.user);
  $('messages').innerHTML = view
    ? `<div class="home" data-testid="home">${renderBlocks(view.blocks, context({ kind: 'view', viewId: view.id }))}</div>`
    : '<p class="hint">Opening the Home tab…</p>';
}

// What a control holds: the picks of checkboxes, radios or a select (a list), or the text typed.
function readValue(el) {
  if (el.classList.contains('choices')) return [...el.querySelectorAll('input:checked')].map((i) => i.value);
  if (el.tagName === 'SELECT') return [...el.selectedOptions].map((o) => o.value);
  return el.value;
}

// Puts back what readValue gave: picks (a list) on choices and selects, text on a text input.
function setValue(el, value) {
  if (el.classList.contains('choices'))
    for (const input of el.querySelectorAll('input')) input.checked = value.includes(input.value);
  else if (el.tagName === 'SELECT') for (const o of el.options) o.selected = value.includes(o.value);
  else el.value = value;
}

// What the person typed or picked in the open modal. A re-render (inline errors, views.update) puts it
// back, as Slack keeps an input's state while its block and action ids stay the same.
function captureInputs(root) {
  return new Map(
    [...root.querySelectorAll('[data-input]')].map((el) => [
      `${el.dataset.block}|${el.dataset.action}`,
      readValue(el),
    ]),
  );
}

function restoreInputs(root, saved) {
  for (const el of root.querySelectorAll('[data-input]')) {
    const value = saved.get(`${el.dataset.block}|${el.dataset.action}`);
    if (value !== undefined) setValue(el, value);
  }
}

function renderModal() {
  const s = ui.state;
  const modal = [...s.views].reverse().find((v) => v.type === 'modal' && v.user === ui.user && !v.closed);
  const root = $('modal-root');
  if (!modal) {
    root.innerHTML = '';
    return;
  }
  if (
    root.dataset.view === modal.id &&
    root.dataset.hash === modal.hash &&
    root.dataset.errors === JSON.stringify(ui.viewErrors[modal.id] ?? {})
  )
    return;
  const typed = root.dataset.view === modal.id ? captureInputs(root) : new Map();
  root.dataset.view = modal.id;
  root.dataset.hash = modal.hash;
  root.dataset.errors = JSON.stringify(ui.viewErrors[modal.id] ?? {});
  const ctx = context({ kind: 'view', viewId: modal.id }, ui.viewErrors[modal.id]);
  root.innerHTML = `<div class="overlay"><form class="modal" data-testid="modal" data-view="${modal.id}">
    <h2>${escapeHtml(modal.title?.text ?? '')}</h2>
    ${renderBlocks(modal.blocks, ctx)}
    <div class="buttons">
      <button type="button" class="button" data-close>${escapeHtml(modal.close?.text ?? 'Cancel')}</button>
      ${modal.submit ? `<button type="submit" class="button primary">${escapeHtml(modal.submit.text)}</button>` : ''}
    </div></form></div>`;
  restoreInputs(root, typed);
}

// Slack's confirmation dialog for an element with a `confirm` object: nothing is sent unless confirmed.
function askToConfirm(dialog) {
  const root = $('confirm-root');
  root.innerHTML = `<div class="overlay"><div class="modal confirm" role="dialog" aria-modal="true" data-testid="confirm">
    <h2>${escapeHtml(dialog.title)}</h2>
    <div class="confirm-text">${dialog.html}</div>
    <div class="buttons">
      <button type="button" class="button" data-answer="deny">${escapeHtml(dialog.deny)}</button>
      <button type="button" class="button ${dialog.style === 'danger' ? 'danger' : 'primary'}" data-answer="confirm">${escapeHtml(dialog.confirm)}</button>
    </div></div></div>`;
  return new Promise((resolve) => {
    root.querySelector('.confirm').addEventListener('click', (event) => {
      const answer = event.target.closest('[data-answer]')?.dataset.answer;
      if (!answer) return;
      event.stopPropagation();
      root.innerHTML = '';
      resolve(answer === 'confirm');
    });
  });
}

// The event log: the bot's Web API calls as the sandbox answered them, newest first. A 429 shows its
// Retry-After and which of Slack's limits refused it; an injected failure is marked as such.
function renderEventLog() {
  const failuresOnly = $('log-failures').checked;
  const calls = (ui.state.apiCalls ?? [])
    .filter((c) => !failuresOnly || !c.ok)
    .slice(-60)
    .reverse();
  $('event-log').innerHTML =
    calls
      .map((c) => {
        const kind = c.error === 'ratelimited' ? 'ratelimited' : c.ok ? 'ok' : 'failed';
        const outcome = c.dropped
          ? 'connection dropped'
          : c.ok
            ? `${c.status} ok`
            : `${c.status} ${escapeHtml(c.error ?? '')}`;
        const details = [
          c.retryAfter !== undefined ? `Retry-After: ${c.retryAfter}s` : '',
          c.limit ? `(${escapeHtml(c.limit)})` : '',
        ]
          .filter(Boolean)
          .join(' ');
        if (c.event) {
          // An event Slack sent the bot; a retry carries Slack's retry number and reason.
          const retry = c.event.retry > 0 ? ` retry ${c.event.retry} (${escapeHtml(c.event.reason)})` : '';
          return `<li class="api-call event ${kind}" data-testid="api-call" data-method="${escapeHtml(c.method)}" data-outcome="${kind}" data-retry="${c.event.retry}">
          <span class="when">${new Date(c.at).toLocaleTimeString()}</span> ⇢ bot: ${escapeHtml(c.method)}${c.channel ? ` ${escapeHtml(c.channel)}` : ''}${retry}
          → ${c.ok ? `${c.status} acked` : escapeHtml(c.error ?? 'failed')}</li>`;
        }
        return `<li class="api-call ${kind}" data-testid="api-call" data-method="${escapeHtml(c.method)}" data-outcome="${kind}">
          <span class="when">${new Date(c.at).toLocaleTimeString()}</span> ${escapeHtml(c.method)}${c.channel ? ` ${escapeHtml(c.channel)}` : ''}
          → ${outcome}${c.injected ? '<span class="badge">injected</span>' : ''}${details ? `<br>${details}` : ''}</li>`;
      })
      .join('') || '<li class="hint">No calls yet.</li>';
}

function render() {
  if (!ui.state) return;
  renderEventLog();
  const s = ui.state;
  $('workspace').textContent = s.team?.domain ?? 'Sandbox';
  const users = s.users.filter((u) => !u.is_bot);
  const userSelect = $('user');
  userSelect.innerHTML = users
    .map(
      (u) =>
        `<option value="${u.id}"${u.id === ui.user ? ' selected' : ''}>${escapeHtml(u.real_name)} (${u.id})</option>`,
    )
    .join('');
  $('channels').innerHTML = s.channels
    .filter((c) => !c.is_im)
    .map(
      (c) =>
        `<li><button class="nav-item${!ui.home && !ui.dm && c.id === ui.channel ? ' active' : ''}" data-channel-id="${c.id}">${c.is_private ? '🔒' : '#'} ${escapeHtml(c.name)}</button></li>`,
    )
    .join('');
  $('home-tab').classList.toggle('active', ui.home);
  $('dm-tab').classList.toggle('active', ui.dm && !ui.home);
  if (ui.home) renderHome();
  else renderChannel();
  renderModal();
}

async function refresh() {
  const response = await fetch('/sandbox/state');
  ui.state = await response.json();
  render();
}

async function refreshEmulator() {
  const list = $('emulator-sessions');
  const data = await fetch('/sandbox/emulator/sessions')
    .then((r) => r.json())
    .catch(() => ({ sessions: [] }));
  list.innerHTML = (data.sessions ?? [])
    .slice(-12)
    .reverse()
    .map(
      (s) =>
        `<li><button type="button" class="session-link" data-session-id="${escapeHtml(s.sessionId)}" title="Show its card"><code>${escapeHtml(s.sessionId)}</code> ${escapeHtml(s.scenario)} · <strong>${escapeHtml(s.status)}</strong></button></li>`,
    )
    .join('');
}

// From the emulator panel to the session's card: the channel it is in, scrolled to and flashed.
function showCard(sessionId) {
  const channel = ui.state.channels.find((c) =>
    c.messages.some((m) => !m.thread_ts && JSON.stringify(m.blocks ?? []).includes(sessionId)),
  );
  if (!channel) {
    toast(`${sessionId} has no card here (started outside Slack?)`);
    return;
  }
  ui.home = false;
  ui.dm = false;
  ui.channel = channel.id;
  render();
  const card = [...document.querySelectorAll('[data-testid="conversation"]')].find((c) =>
    c.firstElementChild?.textContent.includes(sessionId),
  );
  card?.scrollIntoView({ block: 'start' });
  card?.classList.add('flash');
  setTimeout(() => card?.classList.remove('flash'), 1500);
}

// What the person picked in a modal, as the driver wants it: values[blockId][actionId].
function modalValues(form) {
  const values = {};
  for (const el of form.querySelectorAll('[data-input]')) {
    const block = el.dataset.block;
    const action = el.dataset.action;
    let value;
    if (el.classList.contains('choices')) {
      const checked = readValue(el);
      value = el.dataset.kind === 'checkbox' ? checked : checked[0];
    } else if (el.tagName === 'SELECT' && el.multiple) value = readValue(el);
    else value = el.value === '' ? undefined : el.value;
    values[block] = { ...(values[block] ?? {}), [action]: value };
  }
  return values;
}

document.addEventListener('click', async (event) => {
  const target = event.target.closest('button');
  if (!target) return;
  if (target.dataset.replyTs) {
    ui.replyTo = ui.replyTo?.ts === target.dataset.replyTs ? undefined : { ts: target.dataset.replyTs };
    render();
    $('composer').focus();
    return;
  }
  if (target.id === 'reply-cancel') {
    ui.replyTo = undefined;
    render();
    return;
  }
  if (target.id === 'dm-tab') {
    ui.dm = true;
    ui.home = false;
    ui.replyTo = undefined;
    render();
    return;
  }
  if (target.dataset.channelId) {
    ui.channel = target.dataset.channelId;
    ui.home = false;
    ui.dm = false;
    ui.replyTo = undefined;
    localStorage.setItem('sandbox.channel', ui.channel);
    render();
    return;
  }
  if (target.dataset.sessionId) {
    showCard(target.dataset.sessionId);
    return;
  }
  if (target.id === 'home-tab') {
    ui.home = true;
    render();
    await post('/sandbox/home', { user: ui.user });
    return;
  }
  if (target.dataset.close !== undefined) {
    const form = target.closest('form');
    await post('/sandbox/close', { user: ui.user, viewId: form.dataset.view });
    return;
  }
  if (target.dataset.action && target.dataset.ts) {
    if (target.dataset.confirm && !(await askToConfirm(JSON.parse(target.dataset.confirm)))) return;
    await post('/sandbox/act', {
      user: ui.user,
      channel: target.dataset.channel,
      ts: target.dataset.ts,
      actionId: target.dataset.action,
      // Feedback buttons share one action_id: the pressed button's value says which was pressed.
      ...(target.dataset.pressValue !== undefined ? { value: target.dataset.value } : {}),
    });
  }
});

document.addEventListener('change', async (event) => {
  const el = event.target;
  if (el.id === 'log-failures') {
    renderEventLog();
    return;
  }
  if (el.id === 'user') {
    ui.replyTo = undefined;
    ui.user = el.value;
    localStorage.setItem('sandbox.user', ui.user);
    render();
    if (ui.home) await post('/sandbox/home', { user: ui.user });
    return;
  }
  const holder = el.closest('[data-action][data-ts]');
  if (!holder || holder.hasAttribute('data-input')) return;
  const at = {
    user: ui.user,
    channel: holder.dataset.channel,
    ts: holder.dataset.ts,
    actionId: holder.dataset.action,
  };
  if (holder.classList.contains('choices')) {
    const checked = readValue(holder);
    if (holder.dataset.kind === 'checkbox') {
      ui.drafts[`${at.ts}|${at.actionId}`] = checked;
      await post('/sandbox/choose', { ...at, value: checked });
    } else await post('/sandbox/act', { ...at, value: checked[0] });
  } else if (holder.tagName === 'SELECT' && holder.multiple) {
    const picked = readValue(holder);
    ui.drafts[`${at.ts}|${at.actionId}`] = picked;
    await post('/sandbox/choose', { ...at, value: picked });
  } else if (holder.tagName === 'SELECT') {
    await post('/sandbox/act', { ...at, value: holder.value });
  }
});

document.addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target;
  if (form.id === 'composer-form') {
    const input = $('composer');
    const text = input.value.trim();
    if (!text) return;
    const match = /^(\/\w+)\s*([\s\S]*)$/.exec(text);
    input.value = '';
    ui.home = false;
    if (match && !ui.replyTo) {
      // Slack runs slash commands from the channel (and DM) composer, never from a thread.
      const channel = ui.dm ? dmId() : ui.channel;
      await post('/sandbox/command', { user: ui.user, channel, command: match[1], text: match[2] });
      return;
    }
    // A message: `@agents` becomes a mention of the bot, as Slack's composer makes it.
    await post('/sandbox/say', {
      user: ui.user,
      ...(ui.dm ? { dm: true } : { channel: ui.channel }),
      ...(ui.replyTo ? { threadTs: ui.replyTo.ts } : {}),
      text,
    });
    return;
  }
  if (form.id === 'scenario-form') {
    const text = `start scenario:${$('scenario').value} ${$('scenario-goal').value}`.trim();
    ui.home = false;
    await post('/sandbox/command', { user: ui.user, channel: ui.channel, command: '/agent', text });
    return;
  }
  if (form.classList.contains('modal')) {
    const viewId = form.dataset.view;
    const result = await post('/sandbox/submit', { user: ui.user, viewId, values: modalValues(form) });
    ui.viewErrors[viewId] = result?.body?.response_action === 'errors' ? result.body.errors : {};
    render();
  }
});

const config = await fetch('/sandbox/config').then((r) => r.json());
if (!config.botConnected) toast('No bot is connected to this sandbox yet');
if (config.emulator) {
  $('emulator-panel').hidden = false;
  refreshEmulator();
  setInterval(refreshEmulator, 2000);
}
const events = new EventSource('/sandbox/events');
events.addEventListener('change', () => refresh());
await refresh();
