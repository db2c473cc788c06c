/**
 * `/agent <subcommand> …` into what to do, or a usage error naming what was wrong. Messages are Slack
 * mrkdwn: what the person typed is escaped, and placeholders are written `&lt;goal&gt;`.
 */
import { START_FLAGS } from './blocks/modals.js';
import { ROUND_HELP } from './blocks/session-summary.js';
import { escapeMrkdwn } from './blocks/text.js';

export type AgentCommand =
  | { kind: 'start'; goal: string; budget?: number; maxIterations?: number; codeChannel?: true }
  | { kind: 'start_modal' }
  | { kind: 'status'; sessionId?: string }
  | { kind: 'list' }
  | { kind: 'pause' | 'resume' | 'cancel'; sessionId: string }
  | { kind: 'redirect'; sessionId: string; message: string }
  | { kind: 'history'; sessionId: string }
  | { kind: 'settings' }
  | { kind: 'help' }
  /** `brief`: the message says all a person needs (a near-miss subcommand), without the whole help. */
  | { kind: 'error'; message: string; brief?: true };

export const USAGE = [
  '*Agent sessions*',
  `\`/agent start &lt;goal&gt; ${START_FLAGS} [--channel]\` — start a session here (no goal: a form; \`--channel\`: in a channel of its own; flags go before or after the goal, here and in a mention of the bot)`,
  '`/agent status [session-id]` — a session’s state and any question waiting for you',
  '`/agent list` — this channel’s active sessions',
  '`/agent pause|resume|cancel &lt;session-id&gt;`',
  '`/agent redirect &lt;session-id&gt; &lt;new direction&gt;`',
  '`/agent history &lt;session-id&gt;` — who did what on a session, and when (only you see it)',
  '`/agent settings` — this channel’s defaults for new sessions (approvers)',
  '`/agent help`',
  `*What is a round?* ${ROUND_HELP}`,
  'Tip: a `scenario:&lt;name&gt;` word in the goal picks a scripted scenario on the local emulator.',
].join('\n');

const FLAG = /(?:^|\s)--(budget|max-iterations)(?:=|\s+)(\S+)/g;
/** `--channel`: the session works in a channel of its own (a code channel); it takes no value. */
const CHANNEL_FLAG = /(?:^|\s)--channel(?=\s|$)/g;

export function parseAgentCommand(text: string): AgentCommand {
  const trimmed = text.trim();
  const [sub = '', ...rest] = trimmed.split(/\s+/);
  const args = trimmed.slice(sub.length).trim();
  switch (sub.toLowerCase()) {
    case '':
    case 'help':
      return { kind: 'help' };
    case 'start': {
      let budget: number | undefined;
      let maxIterations: number | undefined;
      const problems: string[] = [];
      for (const match of args.matchAll(FLAG)) {
        const [, name, raw = ''] = match;
        const value = Number(raw);
        if (name === 'budget') {
          if (!(Number.isFinite(value) && value > 0))
            problems.push(`--budget must be a positive number of dollars, got "${escapeMrkdwn(raw)}"`);
          else budget = value;
        } else if (!(Number.isInteger(value) && value > 0)) {
          problems.push(`--max-iterations must be a whole number above 0, got "${escapeMrkdwn(raw)}"`);
        } else maxIterations = value;
      }
      const unknown = args.match(
        /(?:^|\s)(--(?!budget(?=[=\s]|$)|max-iterations(?=[=\s]|$)|channel(?=\s|$))[\w-]+)/,
      );
      if (unknown)
        problems.push(
          `unknown flag ${escapeMrkdwn(unknown[1] ?? '')}; flags are --budget, --max-iterations and --channel`,
        );
      const codeChannel = CHANNEL_FLAG.test(args);
      CHANNEL_FLAG.lastIndex = 0;
      if (problems.length > 0) return { kind: 'error', message: problems.join('\n') };
      const goal = args
        .replace(FLAG, ' ')
        .replace(CHANNEL_FLAG, ' ')
        .replace(/[ \t]+/g, ' ')
        .replace(/ *\n */g, '\n')
        .trim();
      if (goal === '') return { kind: 'start_modal' };
      return {
        kind: 'start',
        goal,
        ...(budget === undefined ? {} : { budget }),
        ...(maxIterations === undefined ? {} : { maxIterations }),
        ...(codeChannel ? { codeChannel } : {}),
      };
    }
    case 'status':
      return rest[0] ? { kind: 'status', sessionId: rest[0] } : { kind: 'status' };
    case 'list':
      return { kind: 'list' };
    case 'settings':
      return { kind: 'settings' };
    case 'pause':
    case 'resume':
    case 'cancel':
      if (!rest[0])
        return { kind: 'error', message: `\`/agent ${sub} &lt;session-id&gt;\`: the session id is missing` };
      return { kind: sub.toLowerCase() as 'pause' | 'resume' | 'cancel', sessionId: rest[0] };
    case 'history':
      if (!rest[0])
        return { kind: 'error', message: '`/agent history &lt;session-id&gt;`: the session id is missing' };
      return { kind: 'history', sessionId: rest[0] };
    case 'redirect': {
      // The direction is kept as typed, line breaks included.
      const match = /^(\S+)\s+([\s\S]*\S)/.exec(args);
      if (!match?.[1] || !match[2]) {
        return {
          kind: 'error',
          message: '`/agent redirect &lt;session-id&gt; &lt;new direction&gt;`: both are needed',
        };
      }
      return { kind: 'redirect', sessionId: match[1], message: match[2] };
    }
    default: {
      const near = nearestSubcommand(sub.toLowerCase());
      if (near)
        return {
          kind: 'error',
          message: `\`${escapeMrkdwn(sub)}\` is not a subcommand. Did you mean \`/agent ${near}\`? \`/agent help\` lists them all.`,
          brief: true,
        };
      return { kind: 'error', message: `unknown subcommand "${escapeMrkdwn(sub)}"` };
    }
  }
}

const SUBCOMMANDS = [
  'start',
  'status',
  'list',
  'pause',
  'resume',
  'cancel',
  'redirect',
  'history',
  'settings',
  'help',
];

/** The subcommand a typo was meant to be: at most two edits away (a swap of neighbours is one), and nearest. */
export function nearestSubcommand(typed: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of SUBCOMMANDS) {
    const distance = editDistance(typed, name);
    if (distance <= Math.min(2, name.length - 2) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

/** Edits (insert, delete, replace, swap two neighbours) that make `a` into `b` (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      const row = d[i];
      if (row) row[j] = value;
    }
  }
  return at(a.length, b.length);
}
