// A code channel on the page (Slack Code: a channel per agent session): its context bar (action items
// clickable), its tabs (Block Kit views drawn, a canvas's Markdown, HTML and diffs as text), the agent's
// commands (run with their argument) and, once archived, a banner with the summary shared back. What a
// person does goes to /sandbox/code-channel-action and /sandbox/code-channel-command, which the driver
// turns into what Slack sends the bot.

import { escapeHtml, markdown, mrkdwn, renderBlocks } from '/web/render.js';
import { $, context, post, ui } from '/web/state.js';

const ICONS = {
  branch: '⎇',
  folder: '📁',
  hierarchy: '⛬',
  'life-ring': '⛑',
  link: '🔗',
  globe: '🌐',
  terminal: '▣',
  code: '⟨⟩',
  search: '🔍',
  lock: '🔒',
};

// The tab shown per channel (the first one until the person picks another).
const shownTab = {};

const codeChannelOf = (channelId) => ui.state?.codeChannels?.channels?.find((c) => c.channelId === channelId);

function contextBar(record) {
  const items = record.contextBar
    .map((item) => {
      const icon = item.icon ? `<span class="cc-icon">${ICONS[item.icon] ?? ''}</span>` : '';
      // A label is read as mrkdwn, as the rest of what an app writes: a mention shows the person's name.
      const label = `${icon}${mrkdwn(item.label, context())}`;
      if (item.item_type === 'action' && !record.archived)
        return `<button type="button" class="button cc-item cc-action" data-testid="cc-action" data-cc-action="${escapeHtml(item.key)}">${label}</button>`;
      return `<span class="cc-item" data-testid="cc-item" data-key="${escapeHtml(item.key)}">${label}</span>`;
    })
    .join('');
  return `<div class="cc-bar" data-testid="cc-bar">${items || '<span class="hint">No context yet.</span>'}</div>`;
}

function tabBody(view) {
  if (!view) return '<p class="hint">The agent has no tabs here yet.</p>';
  if (view.type === 'block_kit')
    return renderBlocks(view.blocks ?? [], context({ kind: 'view', viewId: view.view_id }));
  if (view.type === 'canvas') {
    const canvas = ui.state.codeChannels.canvases.find((c) => c.id === view.canvas_id);
    return `<div class="cc-canvas" data-testid="cc-canvas">${markdown(canvas?.content ?? '')}</div>`;
  }
  if (view.type === 'pull_request')
    return `<a href="${escapeHtml(view.pr_url ?? '#')}" target="_blank" rel="noreferrer">${escapeHtml(view.pr_url ?? '')}</a>`;
  return `<pre class="cc-text">${escapeHtml(view.content ?? '')}</pre>`;
}

function tabs(record) {
  const views = record.views;
  const current = views.find((v) => v.view_id === shownTab[record.channelId]) ?? views[0];
  const buttons = views
    .map(
      (v) =>
        `<button type="button" class="cc-tab${v === current ? ' active' : ''}" data-testid="cc-tab" data-cc-tab="${escapeHtml(v.view_id)}" data-view-key="${escapeHtml(v.view_key ?? '')}">${escapeHtml(v.label)}</button>`,
    )
    .join('');
  return `<div class="cc-tabs" role="tablist">${buttons}</div><div class="cc-tab-body" data-testid="cc-tab-body">${tabBody(current)}</div>`;
}

function commands(record) {
  if (record.archived || record.commands.length === 0) return '';
  const list = record.commands
    .map(
      (c) =>
        `<button type="button" class="button cc-command" data-testid="cc-command" data-cc-command="${escapeHtml(c.name)}" title="${escapeHtml(c.description ?? '')}">/${escapeHtml(c.name)}</button>`,
    )
    .join('');
  return `<form class="cc-commands" id="cc-commands"><span class="cc-label">Commands</span>${list}<input id="cc-argument" data-testid="cc-argument" placeholder="argument (for /redirect, /budget)"></form>`;
}

function archived(record) {
  if (!record.archived) return '';
  const origin = record.origin
    ? ` · the summary went back to <code>${escapeHtml(record.origin.channel_id)}</code>`
    : '';
  return `<div class="cc-archived" data-testid="cc-archived">🗄 Archived${origin}</div>`;
}

// The panel above a code channel's messages; hidden elsewhere.
export function renderCodeChannel() {
  const panel = $('code-channel');
  if (!panel) return;
  const record = !ui.home && !ui.dm ? codeChannelOf(ui.channel) : undefined;
  panel.hidden = !record;
  if (!record) {
    panel.innerHTML = '';
    return;
  }
  const argument = $('cc-argument')?.value ?? '';
  const session = record.sessionId ? ` · session <code>${escapeHtml(record.sessionId)}</code>` : '';
  panel.innerHTML = `<div class="cc-head">Code channel${session}</div>${archived(record)}${contextBar(record)}${tabs(record)}${commands(record)}`;
  const input = $('cc-argument');
  if (input) input.value = argument;
}

// A click in the panel: an action item, a tab, a command. True when it was one of ours.
export async function codeChannelClick(target) {
  if (target.dataset.ccTab) {
    shownTab[ui.channel] = target.dataset.ccTab;
    renderCodeChannel();
    return true;
  }
  if (target.dataset.ccAction) {
    await post('/sandbox/code-channel-action', {
      user: ui.user,
      channel: ui.channel,
      key: target.dataset.ccAction,
    });
    return true;
  }
  if (target.dataset.ccCommand) {
    const text = $('cc-argument')?.value ?? '';
    await post('/sandbox/code-channel-command', {
      user: ui.user,
      channel: ui.channel,
      name: target.dataset.ccCommand,
      text,
    });
    const input = $('cc-argument');
    if (input) input.value = '';
    return true;
  }
  return false;
}
