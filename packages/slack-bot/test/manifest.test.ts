import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { RUN_STEP, WAIT_STEP } from '../src/services/workflows/step-inputs.js';
import { endingOf } from '../src/services/workflows/step-outcome.js';

/** The session as the bot recorded it, and when the step ends. */
const ENDING = {
  recorded: { goal: 'g', status: 'running', budget: null, createdAt: '2026-11-22T12:00:00.000Z' },
  now: Date.parse('2026-11-22T12:01:00.000Z'),
};

const manifest = parse(readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8'));

/** The Web API methods the bot calls and the bot scope each needs. */
const SCOPE_OF: Record<string, string> = {
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'files.uploadV2': 'files:write',
  'usergroups.users.list': 'usergroups:read',
  'conversations.replies': 'channels:history',
  // Finding a DM or escalation post after a crash: the DM's id, then its history.
  'conversations.open': 'im:write',
  'conversations.history': 'im:history',
  'views.open': 'commands',
  'conversations.members': 'channels:read',
  'chat.getPermalink': 'chat:write',
  'reactions.add': 'reactions:write',
  // Agent sessions: thread-based sessions need chat:write; suggested prompts need assistant:write.
  'agents.sessions.setStatus': 'chat:write',
  'agents.sessions.rename': 'chat:write',
  'assistant.threads.setSuggestedPrompts': 'assistant:write',
  // Code channels: a session's own channel, its starter invited, its report as a canvas.
  'agents.conversations.create': 'code_channels:manage',
  'agents.conversations.setProperties': 'code_channels:manage',
  'agents.conversations.setView': 'code_channels:manage',
  'agents.conversations.setCommands': 'code_channels:manage',
  'agents.conversations.setCanvasContent': 'code_channels:manage',
  'agents.conversations.archive': 'code_channels:manage',
  'conversations.invite': 'channels:write.invites',
  'canvases.create': 'canvases:write',
};

describe('manifest.yml', () => {
  it('enables code channels: their commands delivered to the bot, their messages and actions heard', () => {
    expect(manifest.features.code_channels).toEqual({
      enabled: true,
      slash_command_url: 'https://bot.example.com/slack/events',
    });
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    expect(events).toEqual(expect.arrayContaining(['message.session', 'code_channel_action']));
  });

  it('declares the app an agent (agent view), with Slack’s Stop button event', () => {
    expect(manifest.features.agent_view.agent_description).toEqual(expect.any(String));
    expect(manifest.features.agent_view.agent_description.length).toBeGreaterThan(0);
    // The retired split pane must not come with it.
    expect(manifest.features.assistant_view).toBeUndefined();
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    expect(events).toContain('agent_session_stopped');
    expect(events).not.toContain('assistant_thread_started');
    expect(manifest.oauth_config.scopes.bot).toContain('assistant:write');
  });

  it('hears a person deactivated (user_change, with users:read) so their agent host tokens stop at once', () => {
    expect(manifest.settings.event_subscriptions.bot_events).toContain('user_change');
    expect(manifest.oauth_config.scopes.bot).toContain('users:read');
  });

  it('stays inside Slack’s manifest limits', () => {
    expect(manifest.display_information.name.length).toBeLessThanOrEqual(35);
    expect(manifest.features.bot_user.display_name.length).toBeLessThanOrEqual(80);
    for (const c of manifest.features.slash_commands) expect(c.command.length).toBeLessThanOrEqual(32);
  });

  it('declares /agent, interactivity and the Home tab event on the one Bolt endpoint', () => {
    const agent = manifest.features.slash_commands.find((c: { command: string }) => c.command === '/agent');
    expect(agent.url).toMatch(/\/slack\/events$/);
    expect(manifest.settings.interactivity).toMatchObject({ is_enabled: true });
    expect(manifest.settings.interactivity.request_url).toBe(agent.url);
    expect(manifest.settings.event_subscriptions.request_url).toBe(agent.url);
    expect(manifest.settings.event_subscriptions.bot_events).toContain('app_home_opened');
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
  });

  it('asks for every scope the bot’s API calls need, and the public-channel post scope', () => {
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    for (const [method, scope] of Object.entries(SCOPE_OF)) expect(scopes, method).toContain(scope);
    expect(scopes).toContain('chat:write.public');
  });

  it('declares the bot’s MCP server for Slackbot’s MCP client, with Slack identity auth and mcp:connect', () => {
    // As Slack's Slackbot MCP client samples declare one: `mcp_servers.<name>` with its URL and auth type.
    expect(Object.values(manifest.mcp_servers)).toEqual([
      { url: 'https://bot.example.com/mcp', auth_type: 'slack_identity_auth' },
    ]);
    expect(manifest.oauth_config.scopes.bot).toContain('mcp:connect');
  });

  it('hears mentions, thread replies and DMs: their events, history scopes and the Messages tab', () => {
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    for (const event of ['app_mention', 'message.channels', 'message.groups', 'message.im'])
      expect(events, event).toContain(event);
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    for (const scope of ['app_mentions:read', 'channels:history', 'groups:history', 'im:history'])
      expect(scopes, scope).toContain(scope);
    expect(manifest.features.app_home).toMatchObject({
      messages_tab_enabled: true,
      messages_tab_read_only_enabled: false,
    });
  });
});

/** The parameter types Slack's manifest takes for a custom step (docs.slack.dev, "Custom steps"). */
const SLACK_TYPES = [
  'string',
  'integer',
  'number',
  'boolean',
  'object',
  'array',
  'slack#/types/channel_id',
  'slack#/types/user_id',
  'slack#/types/usergroup_id',
  'slack#/types/timestamp',
  'slack#/types/date',
  'slack#/types/rich_text',
  'slack#/types/message_ts',
  'slack#/types/interactivity',
];

/** A step's parameters, as Slack's manifest schema has them: properties, and the required among them. */
const parameters = z
  .object({
    properties: z.record(
      z.string().regex(/^[a-z][a-z0-9_]{0,99}$/),
      z
        .object({
          type: z.enum(SLACK_TYPES as [string, ...string[]]),
          title: z.string().min(1).max(100),
          description: z.string().max(1000).optional(),
          hint: z.string().optional(),
        })
        .strict(),
    ),
    required: z.array(z.string()).optional(),
  })
  .strict()
  .refine((p) => (p.required ?? []).every((name) => name in p.properties), 'every required one is declared');

const functionSchema = z
  .object({
    title: z.string().min(1).max(100),
    description: z.string().min(1).max(1000),
    input_parameters: parameters,
    output_parameters: parameters,
  })
  .strict();

describe('manifest.yml: Workflow Builder steps', () => {
  it('declares both steps in Slack’s function schema, run by the bot (remote), in an org-ready app', () => {
    const functions = z
      .record(z.string().regex(/^[a-z][a-z0-9_]{0,99}$/), functionSchema)
      .parse(manifest.functions);
    expect(Object.keys(functions).sort()).toEqual([RUN_STEP, WAIT_STEP].sort());
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.function_runtime).toBe('remote');
    expect(manifest.settings.event_subscriptions.bot_events).toContain('function_executed');
  });

  it('takes the inputs the bot reads, with the goal required and typed as Slack types them', () => {
    const run = functionSchema.parse(manifest.functions[RUN_STEP]);
    expect(run.input_parameters.required).toEqual(['goal']);
    const types = Object.fromEntries(
      Object.entries(run.input_parameters.properties).map(([k, v]) => [k, v.type]),
    );
    expect(types).toEqual({
      goal: 'string',
      channel: 'slack#/types/channel_id',
      budget: 'number',
      max_iterations: 'integer',
      context: 'string',
      mention: 'slack#/types/user_id',
      interactivity: 'slack#/types/interactivity',
    });
    const wait = functionSchema.parse(manifest.functions[WAIT_STEP]);
    expect(wait.input_parameters.required).toEqual(['session_id']);
    // Who ran the workflow, as Slack fills it in: never required, so a scheduled workflow can be published.
    expect(wait.input_parameters.properties.interactivity?.type).toBe('slack#/types/interactivity');
    for (const step of [run, wait]) expect(step.input_parameters.required).not.toContain('interactivity');
  });

  it('declares exactly the outputs the bot gives, each required one always given', () => {
    const ending = endingOf(
      's_1',
      { status: 'completed', completionReport: { summary: 'done' }, cost: { totalCost: 1.5 } },
      'https://example.slack.com/archives/C1/p1',
      ENDING,
    );
    if (ending?.kind !== 'success') throw new Error('a completed session is a success');
    const bare = endingOf('s_1', { status: 'completed' }, undefined, ENDING);
    if (bare?.kind !== 'success') throw new Error('a completed session is a success');
    for (const name of [RUN_STEP, WAIT_STEP]) {
      const outputs = functionSchema.parse(manifest.functions[name]).output_parameters;
      expect(Object.keys(ending.outputs).sort(), name).toEqual(Object.keys(outputs.properties).sort());
      for (const required of outputs.required ?? [])
        expect(Object.keys(bare.outputs), name).toContain(required);
    }
  });

  it('says a success one way: the spec’s other spelling (complete) is output as completed', () => {
    const ending = endingOf('s_1', { status: 'complete' }, undefined, ENDING);
    if (ending?.kind !== 'success') throw new Error('a complete session is a success');
    expect(ending.outputs.status).toBe('completed');
  });
});
