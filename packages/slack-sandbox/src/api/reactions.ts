import { type Method, required, SlackApiError } from './types.js';

// Emoji names as Slack takes them: lower case letters, digits and - _ + ' (skin tones as name::skin-tone-2).
const EMOJI = /^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/;

function target(args: Record<string, unknown>, workspace: Parameters<Method>[1]['workspace']) {
  const channel = workspace.channelForBot(required(args, 'channel'));
  if (!channel) throw new SlackApiError('channel_not_found');
  const message = workspace.findMessage(channel.id, required(args, 'timestamp'));
  if (!message) throw new SlackApiError('message_not_found');
  return message;
}

function emojiName(args: Record<string, unknown>): string {
  // Slack accepts the name with or without colons.
  const name = required(args, 'name').replace(/^:(.*):$/, '$1');
  if (!EMOJI.test(name)) throw new SlackApiError('invalid_name');
  return name;
}

export const reactions: Record<string, Method> = {
  'reactions.add': (args, { workspace }) => {
    const name = emojiName(args);
    const message = target(args, workspace);
    if (!workspace.react(message, name, workspace.seed.botUserId)) throw new SlackApiError('already_reacted');
    return { ok: true };
  },
  'reactions.remove': (args, { workspace }) => {
    const name = emojiName(args);
    const message = target(args, workspace);
    if (!workspace.unreact(message, name, workspace.seed.botUserId)) throw new SlackApiError('no_reaction');
    return { ok: true };
  },
  'reactions.get': (args, { workspace }) => {
    const message = target(args, workspace);
    return { ok: true, type: 'message', channel: message.channel, message };
  },
};
