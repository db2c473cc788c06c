import { json, type Method, required, SlackApiError, str } from './types.js';

/** Uploads waiting for completeUploadExternal: id -> bytes received at the upload URL. */
export const pendingUploads = new Map<string, { name: string; length: number; content?: string }>();

export const files: Record<string, Method> = {
  'files.getUploadURLExternal': (args, { baseUrl }) => {
    const name = required(args, 'filename');
    const length = Number(required(args, 'length'));
    if (!Number.isInteger(length) || length < 0) throw new SlackApiError('invalid_arguments');
    const id = `F${Math.random().toString(36).slice(2, 12).toUpperCase()}`;
    pendingUploads.set(id, { name, length });
    return { ok: true, upload_url: `${baseUrl()}/upload/${id}`, file_id: id };
  },
  'files.completeUploadExternal': (args, { workspace }) => {
    const list = json(args, 'files');
    if (!Array.isArray(list) || list.length === 0) throw new SlackApiError('invalid_arguments');
    const channelId = str(args, 'channel_id');
    const channel = channelId ? workspace.channelForBot(channelId) : undefined;
    if (channelId && !channel) throw new SlackApiError('channel_not_found');
    const threadTs = str(args, 'thread_ts');
    const done = list.map((entry: { id?: string; title?: string }) => {
      const pending = entry.id ? pendingUploads.get(entry.id) : undefined;
      if (!entry.id || !pending || pending.content === undefined) throw new SlackApiError('file_not_found');
      pendingUploads.delete(entry.id);
      const file = {
        id: entry.id,
        name: pending.name,
        title: entry.title ?? pending.name,
        size: Buffer.byteLength(pending.content),
        content: pending.content,
        channels: channel ? [channel.id] : [],
        ...(threadTs ? { thread_ts: threadTs } : {}),
      };
      workspace.addFile(file);
      return file;
    });
    if (channel) {
      const { seed } = workspace;
      workspace.post({
        channel: channel.id,
        text: str(args, 'initial_comment') ?? '',
        files: done,
        bot_id: seed.botId,
        app_id: seed.appId,
        user: seed.botUserId,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
    }
    return { ok: true, files: done.map(({ content, ...rest }) => rest) };
  },
  'files.info': (args, { workspace }) => {
    const file = workspace.files.get(required(args, 'file'));
    if (!file) throw new SlackApiError('file_not_found');
    const { content, ...rest } = file;
    return { ok: true, file: rest, content };
  },
};
