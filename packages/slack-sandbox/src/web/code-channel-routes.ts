/**
 * Code channels on the page and for tests: the switch that makes the workspace refuse them, and what a
 * person does in one (a context bar action clicked, a channel command run), sent through the driver.
 */

import type { Hono } from 'hono';
import { parseCodeChannelMode } from '../agent/options.js';
import type { SlackDriver } from '../driver.js';
import type { Workspace } from '../workspace.js';
import { connectedDriver, jsonRoute } from './json-route.js';

const text = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v === '') throw new Error(`${name} is required`);
  return v;
};

export function addCodeChannelRoutes(
  app: Hono,
  ctx: { workspace: Workspace; driver(): SlackDriver | undefined },
): void {
  const driver = (): SlackDriver => connectedDriver(() => ctx.driver());
  // {mode: on|off}: whether this workspace lets the app make code channels.
  app.post(
    '/sandbox/code-channels',
    jsonRoute((b) => {
      ctx.workspace.codeChannels.configure(parseCodeChannelMode(b.mode, 'mode'));
      return { mode: ctx.workspace.codeChannels.mode };
    }),
  );
  app.post(
    '/sandbox/code-channel-action',
    jsonRoute((b) =>
      driver().clickContextAction({
        user: text(b.user, 'user'),
        channel: text(b.channel, 'channel'),
        key: text(b.key, 'key'),
      }),
    ),
  );
  app.post(
    '/sandbox/code-channel-command',
    jsonRoute((b) =>
      driver().channelCommand({
        user: text(b.user, 'user'),
        channel: text(b.channel, 'channel'),
        name: text(b.name, 'name'),
        ...(typeof b.text === 'string' && b.text !== '' ? { text: b.text } : {}),
      }),
    ),
  );
}
