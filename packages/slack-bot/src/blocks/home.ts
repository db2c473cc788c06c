import type { SessionRecord } from '../store/store.js';
import { statusLabel } from './session-card.js';
import { escapeMrkdwn, mrkdwn, plain, truncate } from './text.js';

/** Sessions shown on the Home tab: each takes 2 blocks, under Slack's 100 with room for the header. */
const MAX_SESSIONS = 45;

export function homeView(sessions: SessionRecord[]) {
  const blocks: unknown[] = [{ type: 'header', text: plain('Your agent sessions', 150) }];
  if (sessions.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn('No sessions yet. Start one in any channel with `/agent start &lt;goal&gt;`.'),
    });
  }
  for (const s of sessions.slice(0, MAX_SESSIONS)) {
    blocks.push(
      {
        type: 'section',
        text: mrkdwn(
          `*${escapeMrkdwn(truncate(s.goal, 200))}*\n${statusLabel(s.status)} · <#${s.channelId}>`,
        ),
      },
      {
        type: 'context',
        elements: [
          mrkdwn(
            `session \`${escapeMrkdwn(s.sessionId)}\` · started ${s.createdAt.slice(0, 16).replace('T', ' ')} UTC`,
          ),
        ],
      },
    );
  }
  if (sessions.length > MAX_SESSIONS) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`…and ${sessions.length - MAX_SESSIONS} older sessions.`)],
    });
  }
  return { type: 'home' as const, blocks };
}
