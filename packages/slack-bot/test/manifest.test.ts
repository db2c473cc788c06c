import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

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
