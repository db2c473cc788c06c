/**
 * The agent platform's routes: the feature switch (tests and setup), and what a person does on the page —
 * Slack's Stop button, opening the Messages tab, clicking a suggested prompt — sent through the driver.
 */

import type { Hono } from 'hono';
import { parseAgentFeatures } from '../agent/options.js';
import type { SlackDriver } from '../driver.js';
import type { Workspace } from '../workspace.js';
import { connectedDriver, jsonRoute } from './json-route.js';

const text = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v === '') throw new Error(`${name} is required`);
  return v;
};

export function addAgentRoutes(app: Hono, ctx: { workspace: Workspace; driver(): SlackDriver | undefined }) {
  const route = jsonRoute;
  const driver = (): SlackDriver => connectedDriver(() => ctx.driver());

  // {features?: on|off|unknown, stopEventSubscribed?: boolean}: how this workspace answers the agent methods.
  app.post(
    '/sandbox/agent-features',
    route((b) => {
      if (b.stopEventSubscribed !== undefined && typeof b.stopEventSubscribed !== 'boolean')
        throw new Error('stopEventSubscribed must be true or false');
      ctx.workspace.agent.configure({
        ...(b.features !== undefined ? { features: parseAgentFeatures(b.features, 'features') } : {}),
        ...(typeof b.stopEventSubscribed === 'boolean' ? { stopEventSubscribed: b.stopEventSubscribed } : {}),
      });
      return {
        features: ctx.workspace.agent.features,
        stopEventSubscribed: ctx.workspace.agent.stopEventSubscribed,
      };
    }),
  );
  app.post(
    '/sandbox/stop-session',
    route((b) =>
      driver().stopAgentSession({
        user: text(b.user, 'user'),
        channel: text(b.channel, 'channel'),
        threadTs: text(b.threadTs, 'threadTs'),
      }),
    ),
  );
  app.post(
    '/sandbox/messages-tab',
    route((b) => driver().openMessagesTab({ user: text(b.user, 'user') })),
  );
  app.post(
    '/sandbox/prompt',
    route((b) =>
      driver().clickSuggestedPrompt({
        user: text(b.user, 'user'),
        ...(typeof b.index === 'number' ? { index: b.index } : {}),
        ...(typeof b.title === 'string' ? { title: b.title } : {}),
      }),
    ),
  );
}
