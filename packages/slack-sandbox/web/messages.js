// A conversation as Slack shows it: a channel or the bot's Messages tab, its messages with their threads,
// files, reactions and the person's own ephemerals; and the App Home tab.

import { promptsPanel, sessionBar, streamingBadge } from '/web/agent.js';
import { setValue } from '/web/inputs.js';
import { clockTime, escapeHtml, renderBlocks } from '/web/render.js';
import { $, context, dmId, readerZone, ui } from '/web/state.js';

// A message's time as Slack's client shows it, in the reader's zone: the same clock as every date token.
const time = (ts) => clockTime(new Date(Number(ts) * 1000), readerZone());

function authorOf(message) {
  if (message.via === 'slack') return 'Slackbot';
  // A workflow's own "Send a message" step posts as Workflow Builder (workflows.js).
  if (message.bot_id === 'BWORKFLOWS') return 'Workflow Builder <small>WORKFLOW</small>';
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
  const streaming = message.streaming_state ? ` data-streaming-state="${message.streaming_state}"` : '';
  return `<div class="message ${extraClass}" data-ts="${message.ts}" data-testid="message"${streaming}>${label}
    <div class="meta"><strong>${authorOf(message)}</strong> ${time(message.ts)}${message.edited ? ' <span class="edited">(edited)</span>' : ''}${streamingBadge(message)}</div>
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

export function renderChannel() {
  const s = ui.state;
  const channel = ui.dm
    ? (s.channels.find((c) => c.id === dmId()) ?? { id: dmId(), name: 'agents', is_im: true, messages: [] })
    : (s.channels.find((c) => c.id === ui.channel) ?? s.channels[0]);
  $('channel-header').textContent = ui.dm
    ? '🤖 agents · Messages'
    : `${channel.is_private ? '🔒' : '#'} ${channel.name} · ${membersLine(channel)}`;
  $('composer-form').hidden = false;
  $('reply-chip').hidden = !ui.replyTo;
  $('composer').placeholder = ui.replyTo
    ? 'Reply in the thread'
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
  const prompts = ui.dm ? promptsPanel() : '';
  box.innerHTML =
    items.map((i) => i.html).join('') ||
    (ui.dm
      ? prompts
        ? ''
        : '<p class="hint">Write to the bot here: a message starts a session.</p>'
      : '<p class="hint">No messages yet. Type <code>/agent help</code> below.</p>');
  // Agent view: the suggested prompts sit above the composer, under the conversation's threads.
  if (prompts) box.insertAdjacentHTML('beforeend', prompts);
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
  // A code channel is the session's conversation: people write in it, as Slack Code shows it, with no
  // "Reply in thread" under each message.
  const codeChannel = ui.state?.codeChannels?.channels?.some((c) => c.channelId === channel.id);
  const reply =
    parent.subtype || codeChannel
      ? ''
      : `<button type="button" class="reply-link${replying ? ' active' : ''}" data-reply-ts="${parent.ts}" data-testid="reply-in-thread">${replying ? 'Replying in this thread' : 'Reply in thread'}</button>`;
  return `<div class="conversation${replying ? ' replying' : ''}" data-testid="conversation">${renderMessage(parent, channel.id)}${sessionBar(channel.id, parent.ts)}${
    thread ? `<div class="thread" data-testid="thread">${thread}</div>` : ''
  }${reply}</div>`;
}

export function renderHome() {
  const s = ui.state;
  // Slack's Home tab is the app's own page: there is nothing to type into.
  $('composer-form').hidden = true;
  $('reply-chip').hidden = true;
  $('channel-header').textContent = '🤖 agents · Home';
  const view = s.views.find((v) => v.type === 'home' && v.user === ui.user);
  $('messages').innerHTML = view
    ? `<div class="home" data-testid="home">${renderBlocks(view.blocks, context({ kind: 'view', viewId: view.id }))}</div>`
    : '<p class="hint">Opening the Home tab…</p>';
}
