import type { HomeView, KnownBlock } from '@slack/types';
import type { PromptRecord, SessionRecord } from '../store/records.js';
import { promptMessage } from './prompt.js';
import { shownGoal, summaryOf } from './session-summary.js';
import { escapeMrkdwn, mrkdwn, placeOf, plain, slackDate, truncate } from './text.js';

/** Sessions shown on the Home tab: each takes 2 blocks, under Slack's 100 with room for the header. */
const MAX_SESSIONS = 45;

/** Questions the viewer may answer, shown first (each with its controls: App Home is a way to answer). */
export interface WaitingOnYou {
  session: SessionRecord;
  prompt: Pick<PromptRecord, 'request'>;
  answerers?: string;
}

const MAX_WAITING = 5;

/** `top`: blocks shown above the rest (the service key section); the sessions list gets what is left. */
export function homeView(
  sessions: SessionRecord[],
  waiting: WaitingOnYou[] = [],
  top: KnownBlock[] = [],
  now: number = Date.now(),
): HomeView {
  const blocks: KnownBlock[] = [...top];
  if (waiting.length > 0) {
    blocks.push({ type: 'header', text: plain(`Waiting on you (${waiting.length})`, 150) });
    for (const w of waiting.slice(0, MAX_WAITING)) {
      const shown = promptMessage(w.prompt.request, {
        sessionId: w.session.sessionId,
        startedBy: w.session.startedBy,
        ...(w.answerers ? { answerers: w.answerers } : {}),
      });
      blocks.push(
        {
          type: 'context',
          elements: [
            mrkdwn(
              `*${escapeMrkdwn(truncate(shownGoal(w.session.goal), 150))}* · ${placeOf(w.session.channelId)}`,
            ),
          ],
        },
        ...shown.blocks,
        { type: 'divider' },
      );
    }
    if (waiting.length > MAX_WAITING) {
      blocks.push({
        type: 'context',
        elements: [mrkdwn(`…and ${waiting.length - MAX_WAITING} more; see each session's thread.`)],
      });
    }
  }
  // Slack allows 100 blocks in a view: the sessions list gets what the questions left.
  const room = Math.max(0, Math.min(MAX_SESSIONS, Math.floor((100 - blocks.length - 3) / 2)));
  blocks.push({ type: 'header', text: plain('Your agent sessions', 150) });
  if (sessions.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn('No sessions yet. Start one in any channel with `/agent start &lt;goal&gt;`.'),
    });
  }
  for (const s of sessions.slice(0, room)) {
    const summary = summaryOf(s, undefined, now);
    blocks.push(
      {
        type: 'section',
        text: mrkdwn(
          `*${escapeMrkdwn(truncate(summary.goal, 200))}*\n${summary.label} · ${placeOf(s.channelId)}`,
        ),
      },
      {
        type: 'context',
        elements: [mrkdwn(`session \`${escapeMrkdwn(s.sessionId)}\` · started ${slackDate(s.createdAt)}`)],
      },
    );
  }
  if (sessions.length > room) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`…and ${sessions.length - room} older sessions.`)],
    });
  }
  return { type: 'home', blocks: uniqueBlockIds(blocks) };
}

/**
 * Slack refuses a view whose block ids repeat, and every approval prompt's buttons sit in a block named
 * `answer`: with two questions waiting, Slack would refuse the whole Home tab.
 * Repeats get a suffix; `choices` stays as it is, as its Submit reads the picks under that name.
 */
function uniqueBlockIds(blocks: KnownBlock[]): KnownBlock[] {
  const seen = new Set<string>();
  return blocks.map((block) => {
    const id = block.block_id;
    if (id === undefined || id === 'choices') return block;
    let unique = id;
    for (let n = 2; seen.has(unique); n++) unique = `${id}_${n}`;
    seen.add(unique);
    return unique === id ? block : { ...block, block_id: unique };
  });
}
