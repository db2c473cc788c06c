// The sandbox page: a client of the sandbox's routes only. It renders the workspace state (re-read on
// every server-sent change) and sends what the person does to /sandbox/*, where the driver turns it into
// exactly what Slack would send the bot. This module draws the frame and wires the person's clicks, picks
// and submissions to the routes; what it draws is in the modules beside it (messages, overlays, event
// log), the shared state in state.js. The sandbox serves them as they are: no bundler.

import { agentClick, openedMessagesTab } from '/web/agent.js';
import { codeChannelClick, renderCodeChannel } from '/web/code-channel.js';
import { renderEventLog } from '/web/event-log.js';
import { modalValues, readValue } from '/web/inputs.js';
import { renderChannel, renderHome } from '/web/messages.js';
import { askToConfirm, renderModal } from '/web/overlays.js';
import { escapeHtml } from '/web/render.js';
import { $, dmId, post, toast, ui } from '/web/state.js';
import { renderWorkflows } from '/web/workflows.js';
import { renderWorkspaces } from '/web/workspaces.js';

function render() {
  if (!ui.state) return;
  renderEventLog();
  const s = ui.state;
  $('workspace').textContent = s.team?.domain ?? 'Sandbox';
  const users = s.users.filter((u) => !u.is_bot);
  // Another workspace shown (the switcher): act as one of its people, in one of its channels.
  if (!users.some((u) => u.id === ui.user)) ui.user = users[0]?.id ?? ui.user;
  if (!s.channels.some((c) => c.id === ui.channel))
    ui.channel = (s.channels.find((c) => c.is_member && !c.is_im) ?? s.channels[0])?.id ?? ui.channel;
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
  renderCodeChannel();
  renderModal();
  renderWorkflows();
}

// The page's first read of the workspace: what it finds open then, an earlier page left behind, and is
// closed before anything is drawn. Every refresh waits for it, so one started meanwhile (a live update)
// never draws a state read before the close.
let firstLoad;

async function refresh() {
  firstLoad ??= (async () => {
    ui.state = await (await fetch('/sandbox/state')).json();
    await closeLeftBehind();
  })();
  await firstLoad;
  const response = await fetch('/sandbox/state');
  ui.state = await response.json();
  render();
}

// A modal lives in the Slack client that opened it, and a reload loses it. A modal still open when the
// page loads was opened by an earlier page (or left half-filled before a reload): closed, as Slack would
// have dropped it, instead of coming back over the page and taking every click until cancelled.
async function closeLeftBehind() {
  const open = ui.state.views.filter((v) => v.type === 'modal' && !v.closed);
  for (const view of open) await post('/sandbox/close', { user: view.user, viewId: view.id });
  if (open.length > 0) ui.state = await (await fetch('/sandbox/state')).json();
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
    await openedMessagesTab();
    return;
  }
  if (await agentClick(target)) return;
  if (await codeChannelClick(target)) return;
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
  // Inside a view (the Home tab, a modal): Slack sends the view, and a modal's inputs as typed so far.
  if (target.dataset.action && target.dataset.view) {
    if (target.dataset.confirm && !(await askToConfirm(JSON.parse(target.dataset.confirm)))) return;
    const form = target.closest('form.modal');
    await post('/sandbox/view-act', {
      user: ui.user,
      viewId: target.dataset.view,
      blockId: target.dataset.block,
      actionId: target.dataset.action,
      ...(target.dataset.pressValue !== undefined ? { value: target.dataset.value } : {}),
      ...(form ? { values: modalValues(form) } : {}),
    });
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
    else if (ui.dm) await openedMessagesTab();
    return;
  }
  // A select, radio buttons or checkboxes in the Home tab (or a modal, outside its inputs) send at once.
  const inView = el.closest('[data-action][data-view]');
  if (inView && !inView.hasAttribute('data-input')) {
    const picked = readValue(inView);
    const single = inView.dataset.kind === 'radio' || (inView.tagName === 'SELECT' && !inView.multiple);
    await post('/sandbox/view-act', {
      user: ui.user,
      viewId: inView.dataset.view,
      blockId: inView.dataset.block,
      actionId: inView.dataset.action,
      value: single ? picked[0] : picked,
    });
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
await renderWorkspaces();
setInterval(renderWorkspaces, 3000);
