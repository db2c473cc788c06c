import type { Workspace } from '../workspace.js';

/**
 * Slack's own slash commands that change who is in a channel. Slack runs them itself and never sends
 * them to an app, so the sandbox plays them for the page, with Slack's rules: only someone in a channel
 * invites to it, and a private channel is joined by invitation only.
 */
export const BUILT_IN_COMMANDS = ['/invite', '/join', '/leave'] as const;

export type BuiltInCommand = (typeof BUILT_IN_COMMANDS)[number];

export const isBuiltInCommand = (command: unknown): command is BuiltInCommand =>
  (BUILT_IN_COMMANDS as readonly unknown[]).includes(command);

/**
 * Plays one of them for `user` in `channel`; `text` has its mentions already as `<@U…>`. Throws what
 * Slack would tell the person, in words.
 */
export function playBuiltInCommand(
  workspace: Workspace,
  input: { command: BuiltInCommand; user: string; channel: string; text: string },
): { joined?: string[]; left?: string } {
  const { command, user, text } = input;
  const channel = workspace.channels.get(input.channel);
  if (!channel || channel.is_im) throw new Error(`${command} works in a channel, not here`);
  const name = `#${channel.name}`;
  if (command === '/join') {
    if (channel.is_private) throw new Error(`${name} is private: someone in it has to /invite you`);
    return { joined: workspace.join(channel.id, user) ? [user] : [] };
  }
  if (command === '/leave') {
    if (!workspace.leave(channel.id, user)) throw new Error(`You are not in ${name}`);
    return { left: user };
  }
  if (!workspace.members(channel.id)?.includes(user))
    throw new Error(`Only people in ${name} can invite to it: /join first`);
  const named = [...text.matchAll(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g)].map((m) => m[1] as string);
  const unknown = text.replace(/<@[A-Z0-9]+(?:\|[^>]*)?>/g, '').match(/@[\w.-]+/);
  if (unknown) throw new Error(`No one here is called ${unknown[0]}`);
  if (named.length === 0) throw new Error('Say who to invite: /invite @name');
  return { joined: named.filter((id) => workspace.join(channel.id, id, user)) };
}

/**
 * What Slack's composer says, only to the person, for a slash command that neither Slack nor any app in
 * the workspace has: the command is not sent anywhere.
 */
export const notAValidCommand = (command: string): string =>
  `${command} is not a valid command. In Slack, all messages that start with the "/" character are interpreted as commands. If you are trying to send a message and not run a command, try preceding the "/" with an empty space.`;

/** The app's own slash commands in this workspace (its manifest's). */
export const appCommands = (workspace: Workspace): string[] => workspace.seed.commands ?? ['/agent'];
