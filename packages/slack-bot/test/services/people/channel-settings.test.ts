import { describe, expect, it } from 'vitest';
import type { FormValues } from '../../../src/services/people/answering.js';
import {
  applyChannelDefaults,
  ChannelSettingsService,
  checkChannelSettings,
} from '../../../src/services/people/channel-settings.js';
import type { ChannelDefaults, ChannelSettings } from '../../../src/store/channel-settings.js';
import { inWorkspace, workspaceOf } from '../../../src/workspace.js';
import { logger } from '../../fakes.js';

describe('checking /agent settings', () => {
  it('every problem named under its field, all at once', () => {
    expect(checkChannelSettings({ budget: 'lots', max_iterations: '2.5', context: '{"repo": ' })).toEqual({
      ok: false,
      errors: {
        budget: 'The default budget must be a positive number of dollars, like 5 or 2.50',
        max_iterations: 'The default max iterations must be a whole number above 0',
        context: expect.stringMatching(/^The context stops before it is complete/),
      },
    });
    expect(checkChannelSettings({ context: '[1, 2]' })).toMatchObject({
      ok: false,
      errors: { context: 'The context must be a JSON object, like {"repo": "acme/api"}' },
    });
    expect(checkChannelSettings({ budget: '-1', max_iterations: '0' })).toMatchObject({
      ok: false,
      errors: { budget: expect.any(String), max_iterations: expect.any(String) },
    });
  });

  it('a default above AGENT_MAX_BUDGET is refused (no session could start with it)', () => {
    expect(checkChannelSettings({ budget: '30' }, 25)).toEqual({
      ok: false,
      errors: { budget: expect.stringMatching(/at most \$25\.00 \(AGENT_MAX_BUDGET\)/) },
    });
  });

  it('valid values; empty fields clear a default', () => {
    expect(
      checkChannelSettings({ budget: '$7.5', max_iterations: '30', context: '{"repo":"acme/api"}' }),
    ).toEqual({
      ok: true,
      defaults: { budget: 7.5, maxIterations: 30, context: { repo: 'acme/api' }, codeChannel: null },
    });
    expect(checkChannelSettings({ budget: undefined, max_iterations: ' ', context: undefined })).toEqual({
      ok: true,
      defaults: { budget: null, maxIterations: null, context: null, codeChannel: null },
    });
  });
});

describe('a channel’s defaults on a new session', () => {
  const defaults: ChannelDefaults = {
    budget: 5,
    maxIterations: 30,
    context: { repo: 'acme/api', env: 'staging' },
  };
  const base = { channelId: 'C0AGENTS', userId: 'U0ALICE', goal: 'Ship it' };

  it('fill what the start left out, and say which were applied', () => {
    expect(applyChannelDefaults(base, defaults)).toEqual({
      input: { ...base, budget: 5, maxIterations: 30, context: { repo: 'acme/api', env: 'staging' } },
      applied: 'Channel defaults: budget $5.00, 30 max iterations, context (repo, env)',
    });
  });

  it('the session’s own flags and context keys win', () => {
    const own = { ...base, budget: 2, maxIterations: 10, context: { env: 'prod', slack: {} } };
    expect(applyChannelDefaults(own, defaults)).toEqual({
      input: { ...own, context: { repo: 'acme/api', env: 'prod', slack: {} } },
      applied: 'Channel defaults: context (repo)',
    });
    expect(applyChannelDefaults({ ...own, context: { repo: 'x', env: 'y' } }, defaults)).toEqual({
      input: { ...own, context: { repo: 'x', env: 'y' } },
    });
    expect(applyChannelDefaults(base, undefined)).toEqual({ input: base });
  });
});

describe('ChannelSettingsService', () => {
  const A = workspaceOf({ teamId: 'T0A' }, true);
  const B = workspaceOf({ teamId: 'T0B' }, true);
  function setup() {
    const saved: Array<[string, string, ChannelDefaults, string]> = [];
    const rows = new Map<string, ChannelSettings>();
    const told: Array<[string, string, string]> = [];
    const service = new ChannelSettingsService({
      settings: {
        get: async (workspace, channelId) => rows.get(`${workspace}:${channelId}`),
        save: async (workspace, channelId, d, userId) => {
          saved.push([workspace, channelId, d, userId]);
          const row = { workspace, channelId, ...d, updatedBy: userId, updatedAt: '2026-11-25T16:00:00Z' };
          rows.set(`${workspace}:${channelId}`, row);
        },
        adoptUnplaced: async () => ({ adopted: 0, dropped: 0 }),
      },
      approvers: { includes: async (u) => u === 'U0BOB', mentions: () => ['<@U0BOB>'] },
      notifier: { tell: async (c, u, text) => void told.push([c, u, text]) },
      logger,
    });
    // Each call as a request from workspace A unless told otherwise.
    const inA = {
      open: (c: string, u: string) => inWorkspace(A, () => service.open(c, u)),
      submitForm: (c: string, u: string, v: FormValues) => inWorkspace(A, () => service.submitForm(c, u, v)),
    };
    return { service: inA, raw: service, saved, told };
  }

  it('a Slack Connect channel: defaults B saved never reach A’s sessions there, nor A’s form', async () => {
    const t = setup();
    const form = inWorkspace(B, () =>
      t.raw.submitForm('CSHARED', 'U0BOB', { budget: '9', context: '{"instructions":"B only"}' }),
    );
    if (!form.ok) throw new Error('refused');
    await inWorkspace(B, () => form.run());
    expect(t.saved.map(([workspace]) => workspace)).toEqual(['T0B']);
    expect(await inWorkspace(A, () => t.raw.defaults('CSHARED'))).toBeUndefined();
    expect((await inWorkspace(B, () => t.raw.defaults('CSHARED')))?.context).toEqual({
      instructions: 'B only',
    });
    const opened = await t.service.open('CSHARED', 'U0BOB');
    if (!opened.ok) throw new Error('refused');
    expect(JSON.stringify(opened.view.blocks)).not.toContain('B only');
    // Work that names no workspace reads no one's defaults and saves none.
    expect(await t.raw.defaults('CSHARED')).toBeUndefined();
    expect(t.raw.submitForm('CSHARED', 'U0BOB', { budget: '1' })).toMatchObject({ ok: false });
  });

  it('only approvers open the form; others are refused privately, nothing read', async () => {
    const t = setup();
    expect(await t.service.open('C0AGENTS', 'U0CAROL')).toEqual({
      ok: false,
      message: 'Only <@U0BOB> can change this channel’s defaults.',
    });
    const opened = await t.service.open('C0AGENTS', 'U0BOB');
    expect(opened).toMatchObject({ ok: true, view: { callback_id: 'channel_settings' } });
  });

  it('saves what an approver submitted, and the form shows it next time', async () => {
    const t = setup();
    const form = t.service.submitForm('C0AGENTS', 'U0BOB', { budget: '5', context: '{"repo":"acme/api"}' });
    if (!form.ok) throw new Error('refused');
    await form.run();
    expect(t.saved).toEqual([
      [
        'T0A',
        'C0AGENTS',
        { budget: 5, maxIterations: null, context: { repo: 'acme/api' }, codeChannel: null },
        'U0BOB',
      ],
    ]);
    expect(t.told[0]?.[2]).toMatch(/^✅ New sessions in <#C0AGENTS> start with: a budget of \$5\.00/);
    const opened = await t.service.open('C0AGENTS', 'U0BOB');
    if (!opened.ok) throw new Error('refused');
    const inputs = JSON.stringify(opened.view.blocks);
    expect(inputs).toContain('"initial_value":"5"');
    expect(inputs).toContain('acme/api');
  });

  it('a submission by someone not an approver is refused privately, with what they typed', async () => {
    const t = setup();
    const form = t.service.submitForm('C0AGENTS', 'U0CAROL', { budget: '5' });
    if (!form.ok) throw new Error('refused inline');
    await form.run();
    expect(t.saved).toEqual([]);
    expect(t.told[0]?.[2]).toMatch(/^🚫 Only <@U0BOB> can change[\s\S]*What you typed:\n> budget: 5$/);
  });

  it('an invalid submission keeps the form open with its errors', () => {
    const t = setup();
    expect(t.service.submitForm('C0AGENTS', 'U0BOB', { max_iterations: 'ten' })).toEqual({
      ok: false,
      errors: { max_iterations: 'The default max iterations must be a whole number above 0' },
    });
  });
});
