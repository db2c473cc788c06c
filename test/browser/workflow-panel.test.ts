import { readFileSync } from 'node:fs';
import { functionsFromManifest } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { patient } from '../support/patience.js';
import { botInPage, screenshot } from './page.js';

// A Workflow Builder workflow on the sandbox's page, with the real bot: the form runs "Run an agent
// session", the person who ran it confirms in the modal the step opens, the run shows the step's
// outputs, and the next step posts them in the channel.
const API_KEY = 'emu_browser_workflow_key_4c7e';
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

const live = botInPage({
  apiKey: API_KEY,
  emulatorSpeed: 10,
  sandbox: { rateLimits: false, functions: functionsFromManifest(manifest) },
  env: { WORKFLOW_STEP_CHECK_EVERY: '200ms' },
  needsPersonMs: 1_000,
});

describe('a workflow in the page', () => {
  it('runs the step from its form, shows its outputs, and posts them in the channel', async () => {
    const panel = live.page.getByTestId('workflows-panel');
    await panel.waitFor();
    const form = panel.locator('[data-testid="workflow-form"][data-callback-id="run_agent_session"]');
    // Who runs it is Slack's to fill in (the person chosen on the page): Workflow Builder shows no field.
    expect(await form.locator('[name="interactivity"]').count()).toBe(0);
    await form.locator('input[name="goal"]').fill('scenario:complete notes from a workflow');
    await form.locator('input[name="budget"]').fill('3');
    await form.getByTestId('workflow-run').click();
    // The person who ran it confirms the session it starts in their name: its goal, before anything starts.
    const modal = live.page.getByTestId('modal');
    await modal.getByText('notes from a workflow').waitFor({ timeout: patient(30_000) });
    await modal.getByRole('button', { name: 'Start' }).click();
    await modal.waitFor({ state: 'detached' });
    const run = panel.locator('[data-testid="workflow-run-state"][data-state="completed"]').first();
    await run.waitFor({ timeout: patient(30_000) });
    const outputs = await run.getByTestId('workflow-outputs').innerText();
    expect(outputs).toMatch(/session_id\s+sess_/);
    expect(outputs).toMatch(/status\s+completed/);
    expect(outputs).toMatch(/notes from a workflow/);
    expect(outputs).toMatch(/permalink\s+http/);
    await live.page.getByTestId('messages').getByText('step "Run an agent session" finished').waitFor();
    await screenshot(live.page, 'workflow-panel');
  });
});
