/**
 * `/agent <subcommand> …` into what to do, or a usage error naming what was wrong. Messages are Slack
 * mrkdwn: what the person typed is escaped, and placeholders are written `&lt;goal&gt;`.
 */
import { START_FLAGS } from './blocks/modals.js';
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
  | { kind: 'error'; message: string };

export const USAGE = [
  '*Agent sessions*',
  `\`/agent start &lt;goal&gt; ${START_FLAGS} [--channel]\` — start a session here (no goal: a form; \`--channel\`: in a channel of its own)`,
  '`/agent status [session-id]` — a session’s state and any question waiting for you',
  '`/agent list` — this channel’s active sessions',
  '`/agent pause|resume|cancel &lt;session-id&gt;`',
  '`/agent redirect &lt;session-id&gt; &lt;new direction&gt;`',
  '`/agent history &lt;session-id&gt;` — who did what on a session, and when (only you see it)',
  '`/agent settings` — this channel’s defaults for new sessions (approvers)',
  '`/agent help`',
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
            problems.push(`--budget must be a positive number of USD, got "${escapeMrkdwn(raw)}"`);
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
    default:
      return { kind: 'error', message: `unknown subcommand "${escapeMrkdwn(sub)}"` };
  }
}
