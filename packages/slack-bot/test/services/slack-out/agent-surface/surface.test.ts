import { describe, expect, it } from 'vitest';
import { MessagesTab, SUGGESTED_PROMPTS_TITLE } from '../../../../src/services/people/messages-tab.js';
import { isFeatureMissing, SurfaceSwitch } from '../../../../src/services/slack-out/agent-surface/surface.js';
import type { OutboundCall } from '../../../../src/services/slack-out/outbound/index.js';

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
      retryAt: '2026-11-25T17:00:00.000Z',
      fallbacks: 1,
    });
  });

  it('auto: tries agent again after the retry time; a new refusal goes classic again, said at info', () => {
    const { lines, logger } = logs();
    let now = new Date('2026-11-25T16:00:00Z');
    const surface = new SurfaceSwitch('auto', logger, () => now, 30 * 60_000);
    surface.fallBack('agents.sessions.setStatus', 'not_agent_app');
    now = new Date('2026-11-25T16:29:59Z');
    expect(surface.current()).toBe('classic');
    now = new Date('2026-11-25T16:30:00Z');
    expect(surface.current()).toBe('agent');
    expect(surface.report()).toMatchObject({ current: 'agent', retriedAt: '2026-11-25T16:30:00.000Z' });
    expect(surface.report().retryAt).toBeUndefined();
    surface.fallBack('chat.startStream', 'missing_scope');
    expect(surface.current()).toBe('classic');
    expect(surface.report()).toMatchObject({
      fallbacks: 2,
      refused: { method: 'chat.startStream', error: 'missing_scope' },
      retryAt: '2026-11-25T17:00:00.000Z',
    });
    expect(lines.map(([l]) => l)).toEqual(['warn', 'info', 'info']);
    expect(lines[2]?.[1]).toMatch(/tried again at 2026-11-25T17:00:00\.000Z/);
    // The operator fixed the app: the next try holds, and nothing says otherwise.
    now = new Date('2026-11-25T17:00:00Z');
    expect(surface.current()).toBe('agent');
    expect(surface.current()).toBe('agent');
  });

  it('auto with retrying off (AGENT_SURFACE_RETRY_MINUTES=0): classic until restarted', () => {
    let now = new Date('2026-11-25T16:00:00Z');
    const surface = new SurfaceSwitch('auto', logs().logger, () => now, 0);
    surface.fallBack('agents.sessions.setStatus', 'missing_scope');
    now = new Date('2026-12-25T16:00:00Z');
    expect(surface.current()).toBe('classic');
    expect(surface.report().retryAt).toBeUndefined();
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
    // Transient: Slack busy, down or slow. None of them says anything about the feature.
    for (const code of [
      'ratelimited',
      'rate_limited',
      'internal_error',
      'fatal_error',
      'service_unavailable',
      'request_timeout',
      'timeout',
    ])
      expect(isFeatureMissing(code), code).toBe(false);
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
    expect(t.queued.map((c) => [c.method, c.priority])).toEqual([
      ['assistant.threads.setSuggestedPrompts', 'urgent'],
    ]);
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
