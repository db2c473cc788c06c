/**
 * Whether a conversation is a public channel of the workspace, as conversations.info describes it: not
 * private, not a DM or group DM, not shared with another organisation. What is unknown counts as private.
 */
export interface ConversationInfo {
  is_private?: boolean;
  is_im?: boolean;
  is_mpim?: boolean;
  is_ext_shared?: boolean;
}

export const isPublicChannel = (channel: ConversationInfo | undefined): boolean =>
  channel?.is_private === false && !channel.is_im && !channel.is_mpim && !channel.is_ext_shared;

/**
 * The same question asked of Slack about a channel id: only a `C…` id can be a public channel (DMs are
 * `D…`, old private channels `G…`), so only those are described. A channel Slack won't describe counts as
 * private; `describe`'s failure goes to `onUnknown`, for the caller's log.
 */
export async function isPublicChannelId(
  channelId: string,
  describe: (channelId: string) => Promise<{ channel?: ConversationInfo }>,
  onUnknown: (error: unknown) => void,
): Promise<boolean> {
  if (!channelId.startsWith('C')) return false;
  const info = await describe(channelId).catch((error: unknown) => {
    onUnknown(error);
    return undefined;
  });
  return isPublicChannel(info?.channel);
}
