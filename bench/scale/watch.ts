/**
 * What the sandbox saw of a scale run, as it happened: each session's card, its report in the thread and
 * its card's final edit (with when), and every Web API call the bots made (by method, by channel, 429s).
 */
import type { RunningSandbox, SandboxMessage } from '@agent-sessions/slack-sandbox';
import { visibleText } from '../slack/match.js';

export interface Tracked {
  index: number;
  goal: string;
  channel: string;
  cardTs?: string;
  cardAt?: number;
  reportAt?: number;
  finalAt?: number;
  /** When each edit of its card showed (and the status it showed). */
  edits: Array<{ at: number; text: string }>;
}

export interface Calls {
  total: number;
  ratelimited: number;
  byMethod: Map<string, { total: number; ratelimited: number }>;
  /** chat.postMessage answered 200, per channel. */
  postsByChannel: Map<string, number>;
}

/** The card's text once the session ended (a status the bot shows as final). */
const FINAL_CARD = /^Agent session [^:]*: (✅ Ended · Completed|❌ Ended · Failed|🛑 Ended · Cancelled) — /;
export const goalOf = (n: number, i: number) => `scale n${n} #${i} end`;
const GOAL = /scale n\d+ #(\d+) end/;

/** The post's key(s) from the metadata the bot attaches to each thread post. */
export function keysOf(m: SandboxMessage): string[] {
  const payload = (m.metadata as { event_payload?: { key?: unknown; keys?: unknown } } | undefined)
    ?.event_payload;
  if (!payload) return [];
  if (typeof payload.keys === 'string') return JSON.parse(payload.keys) as string[];
  return typeof payload.key === 'string' ? [payload.key] : [];
}

export function watch(sandbox: RunningSandbox, tracked: Tracked[]) {
  const calls: Calls = { total: 0, ratelimited: 0, byMethod: new Map(), postsByChannel: new Map() };
  const byCard = new Map<string, Tracked>();
  sandbox.workspace.on('change', (change) => {
    const now = Date.now();
    if (change.kind === 'message') {
      const m = change.message;
      if (!m.thread_ts || m.thread_ts === m.ts) {
        const i = GOAL.exec(visibleText(m))?.[1];
        const t = i === undefined ? undefined : tracked[Number(i)];
        if (t && !t.cardTs) {
          t.cardTs = m.ts;
          t.cardAt = now;
          byCard.set(m.ts, t);
        }
      } else if (keysOf(m).includes('final-report')) {
        const t = byCard.get(m.thread_ts);
        if (t) t.reportAt ??= now;
      }
    } else if (change.kind === 'message_changed') {
      const t = byCard.get(change.message.ts);
      if (!t) return;
      t.edits.push({ at: now, text: change.message.text.slice(0, 40) });
      if (FINAL_CARD.test(change.message.text)) t.finalAt ??= now;
    } else if (change.kind === 'api_call' && !change.call.event) {
      const { method, status, channel } = change.call;
      const limited = status === 429 ? 1 : 0;
      calls.total += 1;
      calls.ratelimited += limited;
      const m = calls.byMethod.get(method) ?? { total: 0, ratelimited: 0 };
      m.total += 1;
      m.ratelimited += limited;
      calls.byMethod.set(method, m);
      if (method === 'chat.postMessage' && status === 200 && channel)
        calls.postsByChannel.set(channel, (calls.postsByChannel.get(channel) ?? 0) + 1);
    }
  });
  return calls;
}
