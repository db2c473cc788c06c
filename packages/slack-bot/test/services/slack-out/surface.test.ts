import { describe, expect, it } from 'vitest';
import { MessagesTab, SUGGESTED_PROMPTS_TITLE } from '../../../src/services/people/messages-tab.js';
import type { OutboundCall } from '../../../src/services/slack-out/outbound.js';
import { isFeatureMissing, SurfaceSwitch } from '../../../src/services/slack-out/surface.js';

function logs() {
  const lines: Array<[string, string]> = [];
  const log = (level: string) => (_: unknown, msg?: string) => void lines.push([level, msg ?? '']);
  return { lines, logger: { info: log('info'), warn: log('warn'), error: log('error') } };
}

const at = () => new Date('2026-11-25T16:00:00Z');

describe('the surface choice (AGENT_SLACK_SURFACE)', () => {
  it('auto: agent until Slack says the feature is missing, then classic for good, logged once', () => {
    const { lines, logger } = logs();
    const surface = new SurfaceSwitch('auto', logger, at);
    expect(surface.current()).toBe('agent');
    surface.fallBack('agents.sessions.setStatus', 'missing_scope');
    surface.fallBack('assistant.threads.setSuggestedPrompts', 'unknown_method');
    expect(surface.current()).toBe('classic');
    expect(lines.filter(([l]) => l === 'warn')).toHaveLength(1);
    expect(surface.report()).toEqual({
      setting: 'auto',
      current: 'classic',
      refused: {
        method: 'agents.sessions.setStatus',
        error: 'missing_scope',
        at: '2026-11-25T16:00:00.000Z',
      },
    });
  });

  it('agent: stays agent; each refusal said once per method and error, as an error naming the fix', () => {
    const { lines, logger } = logs();
    const surface = new SurfaceSwitch('agent', logger, at);
    surface.fallBack('agents.sessions.setStatus', 'missing_scope');
    surface.fallBack('agents.sessions.setStatus', 'missing_scope');
    surface.fallBack('agents.sessions.rename', 'missing_scope');
    expect(surface.current()).toBe('agent');
    const errors = lines.filter(([l]) => l === 'error').map(([, m]) => m);
    expect(errors).toEqual([
      expect.stringMatching(
        /^AGENT_SLACK_SURFACE=agent, but Slack refused agents\.sessions\.setStatus \(missing_scope\)/,
      ),
      expect.stringMatching(/^AGENT_SLACK_SURFACE=agent, but Slack refused agents\.sessions\.rename/),
    ]);
    expect(errors[0]).toMatch(/keep their card and thread[\s\S]*Declare the app an agent/);
    expect(surface.report().refused?.method).toBe('agents.sessions.setStatus');
  });

  it('classic: classic from the start, whatever happens', () => {
    const surface = new SurfaceSwitch('classic', logs().logger);
    expect(surface.current()).toBe('classic');
    expect(surface.report()).toEqual({ setting: 'classic', current: 'classic' });
  });

  it('what counts as “the feature is missing”, and what concerns one call only', () => {
    for (const code of ['unknown_method', 'missing_scope', 'not_allowed_token_type', 'feature_not_enabled'])
      expect(isFeatureMissing(code), code).toBe(true);
    for (const code of ['channel_not_found', 'not_in_channel', 'ratelimited', 'invalid_auth', undefined])
      expect(isFeatureMissing(code), String(code)).toBe(false);
  });
});

describe('the Messages tab (agent view)', () => {
  function setup(setting: 'auto' | 'classic', error?: string) {
    const sent: unknown[] = [];
    const queued: OutboundCall<unknown>[] = [];
    const surface = new SurfaceSwitch(setting, logs().logger);
    const tab = new MessagesTab({
      slack: {
        assistant: {
          threads: {
            setSuggestedPrompts: async (args) => {
              sent.push(args);
              if (error) throw Object.assign(new Error(error), { data: { ok: false, error } });
              return { ok: true };
            },
          },
        },
      },
      outbound: {
        run: <T>(c: OutboundCall<T>) => {
          queued.push(c as OutboundCall<unknown>);
          return c.run();
        },
      },
      surface,
      prompts: [{ title: 'Deploy', message: 'scenario:approval deploy' }],
      logger: logs().logger,
    });
    return { tab, sent, queued, surface };
  }

  it('shows the suggested prompts in the DM, without thread_ts (an agent app’s call with one fails silently)', async () => {
    const t = setup('auto');
    await t.tab.opened('U0ALICE', 'D0ALICE');
    expect(t.sent).toEqual([
      {
        channel_id: 'D0ALICE',
        title: SUGGESTED_PROMPTS_TITLE,
        prompts: [{ title: 'Deploy', message: 'scenario:approval deploy' }],
      },
    ]);
    expect(t.queued.map((c) => [c.method, c.priority])).toEqual([['tier4', 'urgent']]);
  });

  it('classic: nothing; a workspace without agent view: the bot falls back', async () => {
    const classic = setup('classic');
    await classic.tab.opened('U0ALICE', 'D0ALICE');
    expect(classic.sent).toEqual([]);
    const older = setup('auto', 'missing_scope');
    await older.tab.opened('U0ALICE', 'D0ALICE');
    expect(older.surface.current()).toBe('classic');
    // Another failure (a DM Slack can't find) changes nothing.
    const odd = setup('auto', 'channel_not_found');
    await odd.tab.opened('U0ALICE', 'D0ALICE');
    expect(odd.surface.current()).toBe('agent');
  });
});
