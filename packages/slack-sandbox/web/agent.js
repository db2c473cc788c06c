// Slack's agent surfaces on the page: a thread's session status pill with Slack's Stop button while it is
// processing, a streaming message's state, and the Messages tab's suggested prompts. What a person does
// here goes to /sandbox/stop-session, /sandbox/prompt and /sandbox/messages-tab, which the driver turns
// into what Slack sends the bot.

import { escapeHtml } from '/web/render.js';
import { dmId, post, ui } from '/web/state.js';

const agent = () => ui.state.agent ?? { sessions: [], prompts: [], threads: [], stopEventSubscribed: true };

// Each lifecycle status in the words the bot's card uses for the same stage (Running, Waiting, Ended), so
// the page does not show a second vocabulary; the data-status attribute keeps Slack's own value.
const STATUS_WORDS = {
  processing: 'Running',
  active: 'Active',
  suspended: 'Waiting',
  closed: 'Ended',
};

// The session of a thread (its channel and root ts) as a pill, its title, and Stop while it processes.
export function sessionBar(channel, threadTs) {
  const a = agent();
  const session = a.sessions.find((s) => s.channel === channel && s.threadTs === threadTs);
  const thread = a.threads.find((t) => t.channel === channel && t.threadTs === threadTs);
  if (!session && !thread?.status && !thread?.title) return '';
  const at = `data-channel="${escapeHtml(channel)}" data-thread-ts="${escapeHtml(threadTs)}"`;
  let html = '';
  if (session) {
    const status = escapeHtml(session.status);
    const title = session.title
      ? ` <span class="session-title" data-testid="session-title">${escapeHtml(session.title)}</span>`
      : '';
    let stop = '';
    if (session.status === 'processing')
      stop = a.stopEventSubscribed
        ? `<button type="button" class="button stop-session" data-testid="stop-session" data-stop-session ${at} aria-label="Stop the agent">■ Stop</button>`
        : '<span class="session-loading" data-testid="session-loading" title="The app does not subscribe to agent_session_stopped: no Stop">⋯</span>';
    html += `<span class="status-pill status-${status}" data-testid="session-status" data-status="${status}" role="status">${STATUS_WORDS[session.status] ?? status}</span>${title}${stop}`;
  }
  if (thread?.title)
    html += ` <span class="session-title" data-testid="thread-title">${escapeHtml(thread.title)}</span>`;
  if (thread?.status)
    html += ` <span class="assistant-status" data-testid="assistant-status">${escapeHtml(thread.status)}</span>`;
  return `<div class="agent-session" data-testid="agent-session" ${at}${session ? ` data-session-status="${escapeHtml(session.status)}"` : ''}>${html}</div>`;
}

// A streaming message says so while it grows, and once a person stopped it.
export function streamingBadge(message) {
  const state = message.streaming_state;
  if (!state || state === 'completed') return '';
  const words = state === 'in_progress' ? 'streaming…' : 'stopped';
  return ` <span class="streaming-badge" data-testid="streaming" data-streaming-state="${escapeHtml(state)}">${words}</span>`;
}

// The Messages tab's suggested prompts (assistant.threads.setSuggestedPrompts for the person's DM).
export function promptsPanel() {
  const record = agent().prompts.find((p) => p.channel === dmId() && !p.threadTs);
  if (!record?.prompts?.length) return '';
  const buttons = record.prompts
    .map(
      (p, i) =>
        `<button type="button" class="button prompt" data-testid="suggested-prompt" data-prompt-index="${i}" title="${escapeHtml(p.message)}">${escapeHtml(p.title)}</button>`,
    )
    .join('');
  return `<div class="suggested-prompts" data-testid="suggested-prompts" role="group" aria-label="Suggested prompts"><div class="prompts-title">${escapeHtml(record.title ?? 'Suggested prompts')}</div>${buttons}</div>`;
}

// The page's clicks on these: true when the click was one of them.
export async function agentClick(target) {
  if (target.dataset.stopSession !== undefined) {
    await post('/sandbox/stop-session', {
      user: ui.user,
      channel: target.dataset.channel,
      threadTs: target.dataset.threadTs,
    });
    return true;
  }
  if (target.dataset.promptIndex !== undefined) {
    await post('/sandbox/prompt', { user: ui.user, index: Number(target.dataset.promptIndex) });
    return true;
  }
  return false;
}

// Opening the bot's Messages tab is an event Slack sends (agent view): app_home_opened, tab messages.
export const openedMessagesTab = () => post('/sandbox/messages-tab', { user: ui.user });
