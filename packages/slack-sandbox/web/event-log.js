import { clockTime, escapeHtml } from '/web/render.js';
import { $, readerZone, ui } from '/web/state.js';

// The event log: the bot's Web API calls as the sandbox answered them, newest first. A 429 shows its
// Retry-After and which of Slack's limits refused it; an injected failure is marked as such.
export function renderEventLog() {
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
          <span class="when">${clockTime(new Date(c.at), readerZone(), true)}</span> ⇢ bot: ${escapeHtml(c.method)}${c.channel ? ` ${escapeHtml(c.channel)}` : ''}${retry}
          → ${c.ok ? `${c.status} acked` : escapeHtml(c.error ?? 'failed')}</li>`;
        }
        return `<li class="api-call ${kind}" data-testid="api-call" data-method="${escapeHtml(c.method)}" data-outcome="${kind}">
          <span class="when">${clockTime(new Date(c.at), readerZone(), true)}</span> ${escapeHtml(c.method)}${c.channel ? ` ${escapeHtml(c.channel)}` : ''}
          → ${outcome}${c.injected ? '<span class="badge">injected</span>' : ''}${details ? `<br>${details}` : ''}</li>`;
      })
      .join('') || '<li class="hint">No calls yet.</li>';
}
