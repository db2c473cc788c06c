import { describe, expect, it } from 'vitest';
import { parseAgentCommand } from '../src/command-parser.js';
import { parseSuggestedPrompts } from '../src/config/agent-surface.js';
import { ConfigError, loadConfig } from '../src/config/index.js';

describe('AGENT_SLACK_SURFACE and AGENT_SUGGESTED_PROMPTS', () => {
  it('auto by default (blank too); agent and classic when asked; anything else named', () => {
    expect(loadConfig({}).agent).toEqual({
      surface: 'auto',
      surfaceRetryMs: 3_600_000,
      taskDisplay: 'timeline',
    });
    expect(loadConfig({ AGENT_SLACK_SURFACE: '' }).agent.surface).toBe('auto');
    expect(loadConfig({ AGENT_SLACK_SURFACE: 'agent' }).agent.surface).toBe('agent');
    expect(loadConfig({ AGENT_SLACK_SURFACE: 'classic' }).agent.surface).toBe('classic');
    expect(() => loadConfig({ AGENT_SLACK_SURFACE: 'native' })).toThrow(
      'AGENT_SLACK_SURFACE: AGENT_SLACK_SURFACE must be auto, agent or classic',
    );
  });

  it('AGENT_SURFACE_RETRY_MINUTES (0: never) and AGENT_TASK_DISPLAY, each problem named', () => {
    expect(loadConfig({ AGENT_SURFACE_RETRY_MINUTES: '15' }).agent.surfaceRetryMs).toBe(900_000);
    expect(loadConfig({ AGENT_SURFACE_RETRY_MINUTES: '0' }).agent.surfaceRetryMs).toBe(0);
    expect(loadConfig({ AGENT_SURFACE_RETRY_MINUTES: ' ' }).agent.surfaceRetryMs).toBe(3_600_000);
    expect(() => loadConfig({ AGENT_SURFACE_RETRY_MINUTES: '-1' })).toThrow(
      'AGENT_SURFACE_RETRY_MINUTES: AGENT_SURFACE_RETRY_MINUTES must be 0 (never retry) or more',
    );
    expect(() => loadConfig({ AGENT_SURFACE_RETRY_MINUTES: 'soon' })).toThrow(/AGENT_SURFACE_RETRY_MINUTES/);
    expect(loadConfig({ AGENT_TASK_DISPLAY: 'plan' }).agent.taskDisplay).toBe('plan');
    expect(() => loadConfig({ AGENT_TASK_DISPLAY: 'list' })).toThrow(
      'AGENT_TASK_DISPLAY: AGENT_TASK_DISPLAY must be timeline or plan',
    );
  });

  it('prompts: strings or {title, message}, 1 to 4', () => {
    expect(
      loadConfig({
        AGENT_SUGGESTED_PROMPTS:
          '["Summarise the week", {"title": "Deploy", "message": "scenario:approval deploy"}]',
      }).agent.suggestedPrompts,
    ).toEqual([
      { title: 'Summarise the week', message: 'Summarise the week' },
      { title: 'Deploy', message: 'scenario:approval deploy' },
    ]);
    expect(loadConfig({ AGENT_SUGGESTED_PROMPTS: ' ' }).agent.suggestedPrompts).toBeUndefined();
  });

  it('each problem named by its place, all at once', () => {
    const bad = (raw: string) => {
      const parsed = parseSuggestedPrompts(raw);
      return parsed.ok ? [] : parsed.errors;
    };
    expect(bad('{"title": "x"}')).toEqual([
      expect.stringMatching(/^AGENT_SUGGESTED_PROMPTS must be a JSON array .*; got an object$/),
    ]);
    expect(bad('[1, 2, 3, 4, 5]')).toEqual([expect.stringMatching(/1 to 4 prompts.*; got 5$/)]);
    expect(bad('[]')).toEqual([expect.stringMatching(/; got 0$/)]);
    expect(bad('not json')).toEqual([expect.stringMatching(/it is not valid JSON/)]);
    expect(bad('["", {"title": "x"}, {"title": 3, "message": "m"}, null]')).toEqual([
      'AGENT_SUGGESTED_PROMPTS[0] must not be empty',
      'AGENT_SUGGESTED_PROMPTS[1].message must be a non-empty string; got nothing',
      'AGENT_SUGGESTED_PROMPTS[2].title must be a non-empty string; got number 3',
      'AGENT_SUGGESTED_PROMPTS[3] must be a string or {"title", "message"}; got null',
    ]);
    expect(() => loadConfig({ AGENT_SUGGESTED_PROMPTS: '[{"title": "x"}]' })).toThrow(ConfigError);
    expect(() => loadConfig({ AGENT_SUGGESTED_PROMPTS: '[{"title": "x"}]' })).toThrow(
      /^AGENT_SUGGESTED_PROMPTS: AGENT_SUGGESTED_PROMPTS\[0\]\.message must be a non-empty string/,
    );
  });

  it('/agent settings', () => {
    expect(parseAgentCommand('settings')).toEqual({ kind: 'settings' });
    expect(parseAgentCommand('SETTINGS')).toEqual({ kind: 'settings' });
  });
});
