// The Agent Sessions Trigger in a real n8n: docs/trigger.md's example workflow, published, following two
// sessions started straight through the service's API (not by n8n). The approval is answered by the
// workflow's Answer step and its finish fires; the other question fires and stays unanswered; each
// once, and nothing fires again after n8n restarts (the node's static data, saved by n8n).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetch, until } from './server.mjs';

const WORKFLOW_ID = 'asTrigger00001';
const TRIGGER = 'Agent Sessions Trigger';
/**
 * Every 10 seconds, for the test: six Poll Times, each once a minute at its own second. n8n refuses one
 * schedule that polls more than once a minute (2.8.4: a `*` in the seconds field; 2.41.3: anything but a
 * number there), not several that each poll once a minute. No faster: a trigger's polls should not
 * overlap, and on a busy machine one poll can take seconds.
 */
const EVERY_TEN_SECONDS = Array.from({ length: 6 }, (_, n) => ({ mode: 'custom', cronExpression: `${n * 10} * * * * *` }));

/** docs/trigger.md's example workflow, exactly as written but for its sessions and its poll times. */
function triggerWorkflow(packageDir, sessionIds) {
  const doc = readFileSync(join(packageDir, 'docs', 'trigger.md'), 'utf8');
  const workflow = [...doc.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1])).find((w) => w?.id === WORKFLOW_ID);
  if (!workflow) throw new Error(`docs/trigger.md holds no workflow ${WORKFLOW_ID}`);
  const trigger = workflow.nodes.find((n) => n.name === TRIGGER);
  trigger.parameters.sessionIds = sessionIds.join(', ');
  trigger.parameters.pollTimes = { item: EVERY_TEN_SECONDS };
  return workflow;
}

async function startSession(emulatorUrl, apiKey, goal) {
  const response = await fetch(`${emulatorUrl}/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ goal }),
  });
  if (response.status !== 201) throw new Error(`creating a session answered ${response.status}`);
  return (await response.json()).sessionId;
}

const adminSession = async (emulatorUrl, sessionId) =>
  (await (await fetch(`${emulatorUrl}/_emulator/sessions`)).json()).sessions.find((s) => s.sessionId === sessionId);
const statusReads = async (emulatorUrl) => (await (await fetch(`${emulatorUrl}/_emulator/stats`)).json()).requests['GET /v1/sessions/:id'] ?? 0;

/**
 * Before n8n starts: two sessions started elsewhere, both waiting on a question by the time n8n publishes
 * the workflow, and the workflow imported and published.
 */
export async function prepareTrigger({ n8n, env, work, packageDir, emulatorUrl, apiKey, log }) {
  const approval = await startSession(emulatorUrl, apiKey, 'scenario:approval Deploy the API, started outside n8n');
  const question = await startSession(emulatorUrl, apiKey, 'scenario:free_text Prepare the release notes, started outside n8n');
  for (const id of [approval, question]) {
    await until(`session ${id} to ask`, () => adminSession(emulatorUrl, id), (s) => s?.status === 'waiting_human');
  }
  const file = join(work, 'trigger-workflow.json');
  writeFileSync(file, JSON.stringify(triggerWorkflow(packageDir, [approval, question])));
  execFileSync(n8n, ['import:workflow', `--input=${file}`], { env, stdio: 'inherit' });
  execFileSync(n8n, ['publish:workflow', `--id=${WORKFLOW_ID}`], { env, stdio: 'inherit' });
  log(`  (the trigger follows ${approval} and ${question}, both asking)`);
  return { approval, question };
}

/** The trigger's items in each execution of the workflow, oldest first. */
async function firedEvents(rest, readExecutionData) {
  const filter = encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }));
  const executions = (await rest.get(`/rest/executions?filter=${filter}`)).data.results;
  const runs = [];
  for (const execution of [...executions].sort((a, b) => Number(a.id) - Number(b.id))) {
    const full = (await rest.get(`/rest/executions/${execution.id}`)).data;
    const data = readExecutionData(full.data);
    const items = data?.resultData?.runData?.[TRIGGER]?.[0]?.data?.main?.[0]?.map((i) => i.json) ?? [];
    const approved = data?.resultData?.runData?.Approve?.[0]?.data?.main?.[0]?.map((i) => i.json) ?? [];
    const error = data?.resultData?.error;
    runs.push({ id: execution.id, status: full.status ?? execution.status, items, approved, error: error ? `${error.message} ${error.description ?? ''}`.trim() : undefined });
  }
  return runs;
}

const describe = (runs) =>
  runs.map((r) => `#${r.id} ${r.status}: ${r.error ?? r.items.map((i) => `${i.event}@${i.sessionId}`).join(' + ')}`).join('; ');

/** Waits until the trigger has polled `polls` more times (each poll reads both sessions' status). */
async function morePolls(emulatorUrl, polls) {
  const before = await statusReads(emulatorUrl);
  await until(`${polls} more polls`, () => statusReads(emulatorUrl), (n) => n >= before + 2 * polls, 60);
}

/** While n8n runs: the question answered, the finish fired, the other question fired, each once. */
export async function checkTrigger({ sessions, rest, emulatorUrl, readExecutionData, check, log }) {
  const { approval, question } = sessions;
  log('the trigger: a question from a session started elsewhere, answered, then its finish');
  const done = await until('the approval to be answered and the session to finish', () => adminSession(emulatorUrl, approval), (s) => s?.status === 'completed', 90);
  check(done.humanInputs?.[0]?.answer?.approved === true, `the workflow's Answer step approved it (${JSON.stringify(done.humanInputs?.[0]?.answer)})`);
  const fired = (runs) => runs.flatMap((r) => r.items.map((i) => `${i.event}@${i.sessionId}`)).sort();
  const expected = [`finished@${approval}`, `question@${approval}`, `question@${question}`].sort();
  const runs = await until('the finish to fire', () => firedEvents(rest, readExecutionData), (r) => fired(r).length >= 3, 60);
  check(JSON.stringify(fired(runs)) === JSON.stringify(expected), `it fired the two questions and the finish (${describe(runs)})`);
  check(runs.every((r) => r.status === 'success'), `every execution succeeded (${describe(runs)})`);
  const answeredIn = runs.filter((r) => r.approved.length > 0);
  check(answeredIn.length === 1 && answeredIn[0].approved[0]?.sessionId === approval, 'the Answer step ran once, on the approval');
  const questionItem = runs.flatMap((r) => r.items).find((i) => i.event === 'question' && i.sessionId === question);
  check(questionItem?.request?.kind === 'free_text' && Array.isArray(questionItem?.request?.formFields), 'the question came with its kind and form fields');
  await morePolls(emulatorUrl, 3);
  const later = await firedEvents(rest, readExecutionData);
  check(JSON.stringify(fired(later)) === JSON.stringify(expected), `three polls later, nothing fired again (${later.length} executions)`);
  return fired(later);
}

/** After a restart of n8n: the static data it saved keeps the events from firing again. */
export async function checkTriggerAfterRestart({ before, rest, emulatorUrl, readExecutionData, check, log }) {
  log('the trigger after n8n restarted');
  await morePolls(emulatorUrl, 3);
  const runs = await firedEvents(rest, readExecutionData);
  const fired = runs.flatMap((r) => r.items.map((i) => `${i.event}@${i.sessionId}`)).sort();
  check(JSON.stringify(fired) === JSON.stringify(before), `three polls after the restart, nothing fired again (${describe(runs)})`);
}
