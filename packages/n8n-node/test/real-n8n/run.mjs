// The node inside a real n8n (the version is the first argument: 2.8.4, the oldest supported, on the
// machine's Node; 2.41.3, the newest, on Node 24; see install.mjs): pack the package, install the
// tarball where n8n keeps community packages, import credentials and the example workflows (read from
// docs/workflows.md's JSON blocks: one source), run the manual ones with `n8n execute`, then run n8n as a
// server (`n8n start`): answer the agent's questions through n8n's own forms over HTTP as a browser does,
// run the credential test as n8n's dialog does, review an AI Agent's call of the node (2.41: see
// human-review.mjs) and stop an execution; the Agent Sessions Trigger fires on sessions started outside
// n8n, once per event, also after a restart of n8n with unverified community packages off, as n8n 3.0
// has them (trigger.mjs, unverified.mjs). Everything talks to a local emulator (and a scripted model).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
// Core's rules for a successful end: `completed`, or `complete` as some services spell it (EMULATOR_QUIRKS).
import { isActiveStatus, isSuccessStatus, isTerminalStatus } from '@agent-sessions/core/pure-without-zod';

import { ensureN8n } from './install.mjs';
import { humanReview } from './human-review.mjs';
import { checkMcpHost, MCP_WORKFLOW_ID, mcpHostAnswer, prepareMcpHost } from './mcp-host.mjs';
import { startModel } from './model.mjs';
import { fetch, ownerLogin, ownerSession, startN8n, until } from './server.mjs';
import { checkTrigger, checkTriggerAfterRestart, prepareTrigger } from './trigger.mjs';
import { checkUnverifiedDisabled } from './unverified.mjs';

// Which n8n: the first argument (test:n8n runs 2.8.4, then 2.41.3).
const N8N_VERSION = process.argv[2] ?? '2.8.4';
const packageDir = new URL('../..', import.meta.url).pathname;
const repoDir = new URL('../../../..', import.meta.url).pathname;
const workflowsDir = new URL('./workflows/', import.meta.url).pathname;
const API_KEY = 'n8n_real_key_5c2f9e81';
const failures = [];
const log = (line) => process.stdout.write(`${line}\n`);
const check = (ok, what) => {
  log(`${ok ? '  ✓' : '  ✗'} ${what}`);
  if (!ok) failures.push(what);
};

function pack(work) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: packageDir, encoding: 'utf8' });
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  const files = info.files.map((f) => f.path).sort();
  const allowed = (p) => p.startsWith('dist/') || ['README.md', 'LICENSE', 'package.json'].includes(p);
  check(files.every(allowed) && files.includes('README.md') && files.includes('LICENSE'), `the tarball holds only dist, README, LICENSE and package.json (${files.length} files)`);
  return { tarball: join(work, info.filename), name: info.name };
}

function startEmulator() {
  const child = spawn(process.execPath, [join(repoDir, 'packages/emulator/dist/cli.js'), '--port', '0'], {
    env: { ...process.env, EMULATOR_API_KEYS: API_KEY, EMULATOR_SPEED: '20' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, stop: () => child.kill() });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
}

/**
 * `n8n execute --rawOutput` prints log lines first, and on a busy machine now and then one after
 * ("Registered runner …"): the result is the JSON from the first `{` to the last `}`. Output that can't
 * be parsed fails the run (a check that then reads `undefined` must never pass by accident).
 */
function execute(n8n, env, id, { fails = false } = {}) {
  const result = spawnSync(n8n, ['execute', `--id=${id}`, '--rawOutput'], { env, encoding: 'utf8', timeout: 180_000 });
  const text = result.stdout ?? '';
  const start = text.indexOf('{');
  let parsed;
  try {
    parsed = start >= 0 ? JSON.parse(text.slice(start, text.lastIndexOf('}') + 1)) : undefined;
  } catch {
    parsed = undefined;
  }
  const ok = typeof parsed === 'object' && parsed !== null && typeof parsed.status === 'string';
  // A failed execution makes `n8n execute` exit 1 and print the error, and in 2.41.3 the run too (status "error").
  if (fails) {
    const failedRun = !ok || parsed.status === 'error';
    check(result.status === 1 && failedRun, `n8n execute reports the failure of ${id} (exit ${result.status}${ok ? `, run ${parsed.status}` : ''})`);
    return { code: result.status, parsed: ok ? parsed : undefined, stdout: text, stderr: result.stderr ?? '' };
  }
  check(ok, `n8n's output for ${id} is a run as JSON${ok ? '' : ` (exit ${result.status}${result.error ? `, ${result.error.message}` : ''}; stdout ends: ${text.slice(-300)}; stderr ends: ${(result.stderr ?? '').slice(-300)})`}`);
  return { code: result.status, parsed: ok ? parsed : undefined, stdout: text, stderr: result.stderr ?? '' };
}

const items = (run, node) => run?.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.map((i) => i.json) ?? [];
const runsOf = (run, node) => run?.data?.resultData?.runData?.[node] ?? [];

/** The documented example workflows: docs/workflows.md's JSON blocks that are workflows (an `id` and `nodes`), exactly as written. */
function readmeWorkflows() {
  const readme = readFileSync(join(packageDir, 'docs', 'workflows.md'), 'utf8');
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]));
  return blocks.filter((w) => typeof w?.id === 'string' && Array.isArray(w.nodes));
}

/**
 * The hours-long wait, in seconds instead of minutes, with a scripted agent that works a few seconds: the
 * only changes the test makes to a documented workflow, so it loops within the run.
 */
function shortened(workflow) {
  const copy = structuredClone(workflow);
  const byName = (name) => copy.nodes.find((n) => n.name === name);
  byName('Start the agent').parameters.goal = 'scenario:complete Migrate the billing service to the v2 payments API';
  byName('Start the agent').parameters.additionalFields.context = '{"workSteps": 15}';
  Object.assign(byName('Check on the agent').parameters, { pollIntervalSeconds: 1, maxWaitSeconds: 1 });
  Object.assign(byName('Come back later').parameters, { amount: 1, unit: 'seconds' });
  return copy;
}

/** A form post as the page's script sends it: multipart, one `field-<n>` per field. */
function formBody(fields) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
}

/** As the form page asks: the path plus `/n8n-execution-status`, its query (2.41's `signature`) kept. */
async function executionStatus(formWaitingUrl) {
  const url = new URL(formWaitingUrl);
  url.pathname = `${url.pathname}/n8n-execution-status`;
  return (await (await fetch(url)).text()).trim();
}

/**
 * What a person does with the "ask through a form" workflow: open the form, type a goal, wait for the
 * question's page, fill it in and submit, then read the end page. `fields` are the answers by field id,
 * as the page's own script posts them (a dropdown's option text, checkboxes as a JSON list of labels).
 */
async function askThroughForm(base, emulatorUrl, scenario, { expectOnPage, fields, answer }) {
  const formUrl = `${base}/form/agent-sessions-ask`;
  const first = await fetch(formUrl);
  check(first.status === 200, `${scenario}: the goal form opens (${first.status})`);
  const started = await fetch(formUrl, { method: 'POST', body: formBody({ 'field-0': `scenario:${scenario} Ask through a form` }) });
  const startedText = await started.text();
  let formWaitingUrl;
  try {
    ({ formWaitingUrl } = JSON.parse(startedText));
  } catch {
    throw new Error(`posting the goal form answered ${started.status}: ${startedText.slice(0, 500)}`);
  }
  check(typeof formWaitingUrl === 'string' && formWaitingUrl.startsWith(`${base}/form-waiting/`), `${scenario}: n8n answers with its form-waiting URL (${formWaitingUrl})`);
  await until(`${scenario}: the question's page`, () => executionStatus(formWaitingUrl), (s) => s === 'form-waiting' || ['error', 'crashed', 'canceled', 'success'].includes(s));
  const page = await (await fetch(formWaitingUrl)).text();
  const shown = expectOnPage.filter((text) => page.includes(text));
  check(shown.length === expectOnPage.length, `${scenario}: the page asks the question (${expectOnPage.filter((t) => !shown.includes(t)).join(', ') || 'all shown'})`);
  const submitted = await fetch(formWaitingUrl, { method: 'POST', body: formBody(fields) });
  const reply = await submitted.text();
  check(submitted.status === 200, `${scenario}: n8n accepts the submitted form (${submitted.status} ${reply.slice(0, 200)})`);
  // The answer reached the service and the agent finished; n8n then shows the end page (a Form Ending
  // waits for the browser to fetch it). A page fetched while the execution runs would hang: not before.
  const goal = `scenario:${scenario} Ask through a form`;
  const session = await until(
    `${scenario}: the session to finish`,
    async () => (await (await fetch(`${emulatorUrl}/_emulator/sessions`)).json()).sessions.find((s) => s.goal === goal),
    (s) => s !== undefined && !['queued', 'running', 'waiting_human', 'paused'].includes(s.status),
  );
  const got = session.humanInputs?.[0]?.answer;
  check(isDeepStrictEqual(got, answer), `${scenario}: the service received ${JSON.stringify(answer)} (got ${JSON.stringify(got)})`);
  check(session.status === 'completed', `${scenario}: the session completed (${session.status})`);
  const ending = await until(`${scenario}: the end page`, () => executionStatus(formWaitingUrl), (s) => s !== 'running' && s !== 'new');
  check(ending === 'form-waiting', `${scenario}: n8n waits to show the end page (${ending})`);
  const end = await (await fetch(formWaitingUrl)).text();
  const shownEnd = /<h1>The agent has finished<\/h1>/.test(end) && /Status: completed?\./.test(end) && /You answered (&quot;|")[^<]+\1 at \d{4}-\d\d-\d\dT/.test(end);
  check(shownEnd, `${scenario}: the end page shows the result, the question answered and answeredAt${shownEnd ? '' : `: ${end.replace(/\s+/g, ' ').match(/<h1>.*?<\/p>/)?.[0] ?? end.slice(0, 300)}`}`);
  // The end page's script then posts an empty body (`fetch('', { method: 'POST', body: {} })`), which ends the execution.
  await fetch(formWaitingUrl, { method: 'POST', body: String({}) });
  const status = await until(`${scenario}: the execution to end`, () => executionStatus(formWaitingUrl), (s) => ['success', 'error', 'crashed', 'canceled'].includes(s), 30);
  check(status === 'success', `${scenario}: the execution succeeded (${status})`);
}

/** n8n stores an execution's data with `flatted` (circular references kept): its own copy reads it. */
function readExecutionData(text) {
  const require = createRequire(join(installed.dir, 'node_modules', 'n8n', 'package.json'));
  return require('flatted').parse(text);
}

const installed = ensureN8n(N8N_VERSION);
const n8n = installed.bin;
log(`n8n ${N8N_VERSION} on Node ${installed.nodeVersion}`);
const work = mkdtempSync(join(tmpdir(), 'n8n-real-'));
const emulator = await startEmulator();
const startedAt = Date.now();
let server;
let model;
let mcpModel;
let mcpHost;
try {
  const { tarball, name } = pack(work);
  // Where n8n keeps community packages: <user folder>/.n8n/nodes/node_modules/<name>.
  const nodesDir = join(work, '.n8n', 'nodes');
  const target = join(nodesDir, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', target, '--strip-components=1']);
  writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [name]: '0.1.0' } }));
  // Its peer dependency, as npm would have linked it: n8n's own n8n-workflow.
  symlinkSync(join(installed.dir, 'node_modules', 'n8n-workflow'), join(nodesDir, 'node_modules', 'n8n-workflow'), 'dir');

  const env = {
    ...process.env,
    ...installed.nodeEnv,
    N8N_USER_FOLDER: work,
    N8N_ENCRYPTION_KEY: 'agent-sessions-real-n8n-test-key',
    N8N_RUNNERS_ENABLED: 'false',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    DB_SQLITE_POOL_SIZE: '1',
    NO_COLOR: '1',
  };
  const credentials = [
    { id: 'asCred00000001', name: 'Agent Sessions account', type: 'agentSessionsApi', data: { baseUrl: emulator.url, apiKey: API_KEY } },
    { id: 'asCred00000002', name: 'Agent Sessions (wrong key)', type: 'agentSessionsApi', data: { baseUrl: emulator.url, apiKey: 'wrong_key_for_the_test' } },
  ];
  // n8n 2.x's human review of AI tool calls: an AI Agent on a scripted model, its tool call held for a person.
  const reviewed = N8N_VERSION !== '2.8.4';
  model = reviewed ? await startModel() : undefined;
  // And the AI Agent as an MCP host of the bot (mcp-host.mjs), on the same n8n: with the newest only, to
  // keep the run short (the MCP Client Tool and the AI Agent are in both).
  mcpModel = reviewed ? await startModel(mcpHostAnswer) : undefined;
  mcpHost = reviewed ? await prepareMcpHost({ work, emulatorUrl: emulator.url, apiKey: API_KEY, log }) : undefined;
  const allCredentials = reviewed
    ? [
        ...credentials,
        { id: 'asModel0000001', name: 'Scripted model', type: 'openAiApi', data: { apiKey: 'sk-scripted', url: model.url } },
        { id: 'asMcpModel0001', name: 'Scripted MCP host model', type: 'openAiApi', data: { apiKey: 'sk-scripted', url: mcpModel.url } },
        mcpHost.credential,
      ]
    : credentials;
  writeFileSync(join(work, 'credentials.json'), JSON.stringify(allCredentials));
  execFileSync(n8n, ['import:credentials', `--input=${join(work, 'credentials.json')}`], { env, stdio: 'inherit' });
  const wfDir = join(work, 'workflows');
  cpSync(workflowsDir, wfDir, { recursive: true });
  const examples = readmeWorkflows();
  const ids = examples.map((w) => w.id);
  const expected = ['asCreateWait01', 'asApproval0001', 'asAskForm00001', 'asLongWait0001'];
  check(isDeepStrictEqual([...ids].sort(), [...expected].sort()), `docs/workflows.md holds the example workflows (${ids.join(', ')})`);
  for (const workflow of examples) {
    const runnable = workflow.id === 'asLongWait0001' ? shortened(workflow) : workflow;
    writeFileSync(join(wfDir, `${workflow.id}.json`), JSON.stringify(runnable));
  }
  execFileSync(n8n, ['import:workflow', '--separate', `--input=${wfDir}`], { env, stdio: 'inherit' });
  log(`Workflows imported: ${readdirSync(wfDir).join(', ')}`);
  // The form workflow starts from a Form Trigger, the stop test from a webhook: published, `n8n start` serves them.
  execFileSync(n8n, ['publish:workflow', '--id=asAskForm00001'], { env, stdio: 'inherit' });
  execFileSync(n8n, ['publish:workflow', '--id=asStopWait0001'], { env, stdio: 'inherit' });
  if (reviewed) {
    execFileSync(n8n, ['import:workflow', `--input=${join(workflowsDir, '..', 'workflows-2.41', 'human-review.json')}`], { env, stdio: 'inherit' });
    execFileSync(n8n, ['publish:workflow', '--id=asHumanReview1'], { env, stdio: 'inherit' });
    execFileSync(n8n, ['import:workflow', `--input=${mcpHost.workflowFile}`], { env, stdio: 'inherit' });
    execFileSync(n8n, ['publish:workflow', `--id=${MCP_WORKFLOW_ID}`], { env, stdio: 'inherit' });
  }
  // The trigger's workflow, published: n8n polls from its start (a first poll as it publishes it).
  const triggerSessions = await prepareTrigger({ n8n, env, work, packageDir, emulatorUrl: emulator.url, apiKey: API_KEY, log });

  // N8N_TEST_ONLY=server skips the `n8n execute` runs (to iterate on the form test); =mcp runs only the MCP host.
  const only = process.env.N8N_TEST_ONLY;
  if (only !== 'server' && only !== 'mcp') {
  log('create and wait');
  const created = execute(n8n, env, 'asCreateWait01');
  check(created.parsed?.status === 'success', `status success (got ${created.parsed?.status ?? created.stderr.slice(-400)})`);
  const [done] = items(created.parsed, 'Run the agent');
  check(done?.outcome === 'finished' && isSuccessStatus(String(done?.status)), `the agent finished (${done?.outcome} ${done?.status})`);

  log('approval answered inside the workflow');
  const approval = execute(n8n, env, 'asApproval0001');
  check(approval.parsed?.status === 'success', `status success (got ${approval.parsed?.status ?? approval.stderr.slice(-400)})`);
  const [asked] = items(approval.parsed, 'Start the release');
  check(asked?.outcome === 'needs_person' && asked?.request?.kind === 'approval', 'the first wait stopped at the approval');
  check(Array.isArray(asked?.request?.formFields) && asked.request.formFields[0]?.fieldType === 'dropdown', 'the question comes with its form fields');
  const [approved] = items(approval.parsed, 'Approve');
  check(approved?.answer?.approved === true && approved?.question?.kind === 'approval' && typeof approved?.answeredAt === 'string', 'the Respond step approved it, and says what it answered and when');
  const [finished] = items(approval.parsed, 'Wait for the result');
  check(finished?.outcome === 'finished' && isSuccessStatus(String(finished?.status)), `the session then completed (${finished?.status})`);

  log('hours-long wait without a worker (in seconds)');
  const long = execute(n8n, env, 'asLongWait0001');
  check(long.parsed?.status === 'success', `status success (got ${long.parsed?.status ?? long.stderr.slice(-400)})`);
  const checks = runsOf(long.parsed, 'Check on the agent').map((r) => r?.data?.main?.[0]?.[0]?.json?.outcome);
  const parked = runsOf(long.parsed, 'Come back later').length;
  check(checks.length >= 2 && checks.slice(0, -1).every((o) => o === 'timed_out') && checks.at(-1) === 'finished', `it checked, waited in n8n's Wait node and checked again until finished (${checks.join(' → ')})`);
  check(parked === checks.length - 1, `n8n's Wait node ran between the checks (${parked} times)`);
  check(isSuccessStatus(String(items(long.parsed, 'Finished or needs a person')[0]?.status)), 'and ended on the finished branch');

  log('a signal');
  const signal = execute(n8n, env, 'asSignal000001');
  check(signal.parsed?.status === 'success', `status success (got ${signal.parsed?.status ?? signal.stderr.slice(-400)})`);
  const [cancelled] = items(signal.parsed, 'Check');
  check(cancelled?.status === 'cancelled', `the session was cancelled (${cancelled?.status})`);

  log('a wrong key');
  const wrong = execute(n8n, env, 'asWrongKey0001', { fails: true });
  const error = wrong.stdout + wrong.stderr;
  check(/invalid API key|401/i.test(error), 'with an error that says the key was refused (401)');
  check(!error.includes(API_KEY) && !error.includes('wrong_key_for_the_test'), 'and without the key in it');

  }

  log('n8n as a server: questions answered through its own forms');
  const serverStarted = Date.now();
  server = await startN8n(n8n, env);
  // While it starts, n8n answers 200 "n8n is starting up": ready is the form page itself.
  await until('n8n to serve the published form', async () => (await fetch(`${server.base}/form/agent-sessions-ask`)).text(), (page) => page.includes("id='n8n-form'"), 120);
  log(`  (n8n start took ${((Date.now() - serverStarted) / 1000).toFixed(1)} s)`);
  if (only === 'mcp') {
  await checkMcpHost({ host: mcpHost, base: server.base, model: mcpModel, check, log });
  } else {
  const scenarios = {
    approval: {
      expectOnPage: ['Deploy v2.3.1 to production?', 'Approve', 'Reject', 'Reason'],
      fields: { 'field-0': 'Approve', 'field-1': 'Ship it before the freeze' },
      answer: { approved: true, freeText: 'Ship it before the freeze' },
    },
    single_select: {
      expectOnPage: ['Which environment should I deploy to?', 'Staging', 'Canary (5% of traffic)'],
      fields: { 'field-0': 'Canary (5% of traffic)' },
      answer: { choiceId: 'canary' },
    },
    multi_select: {
      expectOnPage: ['Which regions should I deploy to?', 'Europe', 'US East', 'Asia Pacific', "data-max-select='2'"],
      fields: { 'field-0': JSON.stringify(['Europe', 'Asia Pacific']) },
      answer: { choiceIds: ['eu', 'ap'] },
    },
    free_text: {
      expectOnPage: ['What should the release be called?'],
      fields: { 'field-0': 'Aurora' },
      answer: { freeText: 'Aurora' },
    },
    multi_question: {
      expectOnPage: ['Release name?', 'Channel?', 'Stable', 'Beta'],
      fields: { 'field-0': 'Aurora', 'field-1': 'Beta' },
      answer: { answers: { name: 'Aurora', channel: 'beta' } },
    },
  };
  for (const [scenario, plan] of Object.entries(scenarios)) {
    log(`${scenario} through a form`);
    await askThroughForm(server.base, emulator.url, scenario, plan);
  }

  const rest = await ownerSession(server.base);
  log("the credential test, as n8n's credential dialog runs it");
  for (const [credential, expected] of [
    [credentials[0], { status: 'OK', message: /successful/i }],
    [credentials[1], { status: 'Error', message: /refused \(401\)/ }],
  ]) {
    const tested = await rest.postJson('/rest/credentials/test', { credentials: credential });
    const result = tested?.data;
    check(
      result?.status === expected.status && expected.message.test(String(result?.message)),
      `${credential.name}: ${expected.status} (got ${JSON.stringify(result ?? tested)})`,
    );
    check(!JSON.stringify(tested).includes(credential.data.apiKey), `${credential.name}: the answer does not carry the key`);
  }

  if (model) await humanReview({ base: server.base, emulatorUrl: emulator.url, rest, model, check, log, readExecutionData });
  if (mcpHost) await checkMcpHost({ host: mcpHost, base: server.base, model: mcpModel, check, log });

  log('stopping the execution cancels the session (Cancel Session When Stopped)');
  const goal = 'scenario:long Watch the queue until stopped';
  const hook = await fetch(`${server.base}/webhook/agent-sessions-stop`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ goal }),
  });
  check(hook.status === 200, `the webhook started the workflow (${hook.status})`);
  const sessionOf = async () => (await (await fetch(`${emulator.url}/_emulator/sessions`)).json()).sessions.find((s) => s.goal === goal);
  await until('the session to run', sessionOf, (s) => s !== undefined && isActiveStatus(s.status));
  const filter = encodeURIComponent(JSON.stringify({ workflowId: 'asStopWait0001' }));
  const running = await until(
    'the execution waiting on it',
    async () => (await rest.get(`/rest/executions?filter=${filter}`)).data.results.find((e) => e.status === 'running'),
    (e) => e !== undefined,
  );
  const stopped = await rest.post(`/rest/executions/${running.id}/stop`);
  check(stopped.status === 200, `n8n stopped execution ${running.id} (${stopped.status})`);
  const after = await until('the session to be cancelled', sessionOf, (s) => isTerminalStatus(s.status), 30);
  check(after.status === 'cancelled', `the session was cancelled with the execution (${after.status})`);
  // n8n keeps no output of a stopped execution's step (it saves it "canceled"): the node's log line says it.
  const said = `the execution was stopped, so session ${after.sessionId} was cancelled`;
  await until("the node's log line", async () => server.log(), (text) => text.includes(said), 15).then(
    () => check(true, `n8n's log says so ("${said}")`),
    () => check(false, `n8n's log says so ("${said}")`),
  );
  const execution = await until('the execution to be saved', async () => (await rest.get(`/rest/executions/${running.id}`)).data, (e) => e?.status !== 'running', 30);
  const runData = readExecutionData(execution.data)?.resultData?.runData?.['Run until stopped'];
  const output = runData?.[0]?.data?.main?.[0]?.[0]?.json;
  log(`  (n8n saved the execution as "${execution.status}"; the step's output: ${JSON.stringify(output ?? null)})`);

  const fired = await checkTrigger({ sessions: triggerSessions, rest, emulatorUrl: emulator.url, readExecutionData, check, log });
  log('n8n restarted with N8N_UNVERIFIED_PACKAGES_ENABLED=false (the default from n8n 3.0)');
  await server.stop();
  server = await startN8n(n8n, { ...env, N8N_UNVERIFIED_PACKAGES_ENABLED: 'false' });
  await until('n8n to serve the published form again', async () => (await fetch(`${server.base}/form/agent-sessions-ask`)).text(), (page) => page.includes("id='n8n-form'"), 120);
  const restAgain = await ownerLogin(server.base);
  await checkTriggerAfterRestart({ before: fired, rest: restAgain, emulatorUrl: emulator.url, readExecutionData, check, log });
  await checkUnverifiedDisabled({ base: server.base, rest: restAgain, name, emulatorUrl: emulator.url, check, log });
  }
} catch (error) {
  check(false, `the run went through (${error.stack ?? error})`);
  if (server) log(`n8n's log ends:\n${server.log().slice(process.env.N8N_TEST_DEBUG ? -150_000 : -4000)}`);
} finally {
  await server?.stop();
  model?.stop();
  mcpModel?.stop();
  await mcpHost?.stop();
  emulator.stop();
  rmSync(work, { recursive: true, force: true });
}
log(`\nThe real-n8n run (n8n ${N8N_VERSION}) took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
if (failures.length > 0) {
  log(`\n${failures.length} check(s) failed`);
  process.exit(1);
}
log('\nAll real-n8n checks passed');
