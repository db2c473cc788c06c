// n8n's AI Agent as an MCP host of the bot: the agent's tools are the bot's /mcp, reached through n8n's
// own MCP Client Tool node (HTTP Streamable, bearer auth with a personal token minted for the sandbox's
// Alice), and its model is the scripted one (model.mjs), which calls start_session, then wait_for_session
// until the session ends, then get_session, then answers. The bot runs as production runs it
// (`node dist/main.js`) against the Slack sandbox and the run's emulator. The question the session asks
// is answered by Bob, an approver, clicking Approve under the Slack prompt in the sandbox: the card and
// the answered prompt are then in Slack, and the agent's answer carries the session's end.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintMcpToken, openStore } from '@agent-sessions/slack-bot';
import { defaultSeed, startSandbox } from '@agent-sessions/slack-sandbox';
import { fetch, until } from './server.mjs';

const repoDir = new URL('../../../..', import.meta.url).pathname;
const CHANNEL = 'C0AGENTS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
export const MCP_WORKFLOW_ID = 'asMcpHost00001';
export const MCP_CREDENTIAL = { id: 'asMcpToken0001', name: 'Agent Sessions MCP (Alice)' };

/** The bot as a process on a free port, its log kept; resolves once it prints its Slack request URL. */
function spawnBot(env) {
  const child = spawn(process.execPath, [join(repoDir, 'packages/slack-bot/dist/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output = (output + chunk).slice(-50_000);
      const url = /Slack request URL: (\S+)/.exec(output)?.[1];
      if (url) resolve({ url: url.replace(/\/slack\/events$/, ''), log: () => output, stop: () => stopChild(child) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the bot exited (${code}) before listening:\n${output.slice(-2000)}`)));
  });
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The sandbox and the bot, Alice's token minted into the bot's store before it starts (as `npm start`
 * mints one), and the workflow pointed at the bot's /mcp. Returns the credential n8n imports and the
 * workflow file to import and publish.
 */
export async function prepareMcpHost({ work, emulatorUrl, apiKey, log }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'n8n-mcp-bot-'));
  const sandbox = await startSandbox({ seed: defaultSeed() });
  const store = await openStore({ dataDir });
  const { token } = await mintMcpToken(store, { teamId: sandbox.workspace.seed.teamId, userId: ALICE }).finally(() => store.close());
  const bot = await spawnBot({
    PATH: process.env.PATH ?? '',
    SLACK_BOT_TOKEN: sandbox.botToken,
    SLACK_SIGNING_SECRET: sandbox.signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    AGENT_SERVICE_URL: emulatorUrl,
    AGENT_API_KEY: apiKey,
    AGENT_APPROVERS: 'S0APPROVERS',
    AGENT_SLACK_SURFACE: 'classic',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  });
  log(`  (the bot serves ${bot.url}/mcp)`);
  const workflow = JSON.parse(readFileSync(new URL('./workflows-2.41/mcp-host.json', import.meta.url), 'utf8'));
  workflow.nodes.find((n) => n.name === 'Agent Sessions (MCP)').parameters.endpointUrl = `${bot.url}/mcp`;
  const workflowFile = join(work, 'mcp-host.json');
  writeFileSync(workflowFile, JSON.stringify(workflow));
  return {
    credential: { ...MCP_CREDENTIAL, type: 'httpBearerAuth', data: { token } },
    workflowFile,
    sandbox,
    bot,
    stop: async () => {
      await bot.stop();
      await sandbox.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const text = (content) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));
/** A field of a tool's JSON answer, however n8n wrapped it (as text, possibly escaped inside a string). */
const field = (content, name) => new RegExp(`${name}\\\\?"\\s*:\\s*\\\\?"([^"\\\\]+)`).exec(text(content))?.[1];
const toolNamed = (body, name) => (body.tools ?? []).find((t) => t.function?.name === name || t.function?.name?.endsWith(name))?.function?.name ?? name;
const callTool = (body, name, args) => {
  const id = `call_${name}_${(body.messages ?? []).length}`;
  const call = { id, type: 'function', function: { name: toolNamed(body, name), arguments: JSON.stringify(args) } };
  return { message: { role: 'assistant', content: null, tool_calls: [call] }, finish: 'tool_calls' };
};

/**
 * The scripted host's turns: start_session with the user's words; wait_for_session on the session until
 * it has ended (a question makes it return "asking": it waits again, at most 10 times); get_session; then
 * its answer, which names the session and how it ended.
 */
export function mcpHostAnswer(body) {
  const messages = body.messages ?? [];
  const calls = messages.filter((m) => m.role === 'assistant').flatMap((m) => m.tool_calls ?? []);
  const results = messages.filter((m) => m.role === 'tool');
  const last = calls.at(-1);
  const lastResult = results.at(-1)?.content;
  if (!last) {
    const goal = text([...messages].reverse().find((m) => m.role === 'user')?.content);
    return callTool(body, 'start_session', { goal, channel: CHANNEL });
  }
  const sessionId = results.map((r) => field(r.content, 'session_id')).find(Boolean);
  if (!sessionId) return { message: { role: 'assistant', content: `No session was started: ${text(lastResult).slice(0, 300)}` }, finish: 'stop' };
  const waits = calls.filter((c) => c.function.name.endsWith('wait_for_session')).length;
  if (last.function.name.endsWith('get_session')) {
    const label = field(lastResult, 'status_label') ?? field(lastResult, 'status');
    return { message: { role: 'assistant', content: `Session ${sessionId} ended: ${label}. Card: ${field(results[0]?.content, 'card_ts')}` }, finish: 'stop' };
  }
  const ended = last.function.name.endsWith('wait_for_session') && field(lastResult, 'ended_because') === 'ended';
  if (ended || waits >= 10) return callTool(body, 'get_session', { session_id: sessionId, messages: 1 });
  return callTool(body, 'wait_for_session', { session_id: sessionId, timeout_seconds: 20 });
}

const approveIn = (m) => JSON.stringify(m.blocks ?? []).includes('"action_id":"input_approve"');

/**
 * The chat message sent as a person types it; while n8n's agent waits on the session, its question is
 * found in the card's thread in Slack and approved by Bob; then the agent's answer, the card and the
 * answered prompt are checked.
 */
export async function checkMcpHost({ host, base, model, check, log }) {
  log("n8n's AI Agent as an MCP host: MCP Client Tool → the bot's /mcp, a scripted model");
  const startedAt = Date.now();
  const goal = 'scenario:approval Ship the release notes (from an n8n AI Agent over MCP)';
  const chat = globalThis
    .fetch(`${base}/webhook/agent-sessions-mcp/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'sendMessage', sessionId: 'mcp-host', chatInput: goal }),
      signal: AbortSignal.timeout(180_000),
    })
    .then(async (r) => ({ status: r.status, body: await r.text() }));
  const toolResults = () => model.requests.flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === 'tool'));
  const cardTs = await until('start_session through the MCP Client Tool', async () => toolResults().map((m) => field(m.content, 'card_ts')).find(Boolean), Boolean, 90);
  const sessionId = toolResults().map((m) => field(m.content, 'session_id')).find(Boolean);
  const ws = host.sandbox.workspace;
  const card = ws.findMessage(CHANNEL, cardTs);
  check(card !== undefined && text(card).includes(sessionId), `the session's card is in #agents (${sessionId})`);
  const asked = await until('the session to ask in the card’s thread', async () => ws.replies(CHANNEL, cardTs).find(approveIn), Boolean, 90);
  const waitedAsking = await until('the agent to see the question (wait_for_session: asking)', async () => toolResults().some((m) => field(m.content, 'ended_because') === 'asking'), Boolean, 90).catch(() => false);
  check(waitedAsking, 'the agent saw the question: wait_for_session returned "asking"');
  const driver = host.sandbox.driver(`${host.bot.url}/slack/events`);
  const clicked = await driver.act({ user: BOB, channel: CHANNEL, ts: asked.ts, actionId: 'input_approve' });
  check(clicked.status === 200, `Bob (an approver) approved it in Slack (${clicked.status})`);
  const reply = await chat;
  log(`  (n8n's chat answered ${reply.status}: ${reply.body.slice(0, 300)})`);
  check(reply.status === 200 && reply.body.includes(sessionId) && /Completed/i.test(reply.body), "the agent's answer names the session and that it completed");
  const answered = await until('the prompt shown answered', async () => ws.replies(CHANNEL, cardTs).find((m) => m.ts === asked.ts && !approveIn(m) && /Approved/i.test(text(m)) && text(m).includes(BOB)), Boolean, 30).catch(() => undefined);
  check(answered !== undefined, 'the Slack prompt shows it approved, by Bob');
  const finalCard = await until('the card to show the end', async () => ws.findMessage(CHANNEL, cardTs), (m) => /Completed/.test(text(m)), 30).catch(() => undefined);
  check(finalCard !== undefined, 'the card shows the session completed');
  const via = /started via MCP, [^"`]+/.exec(text(ws.findMessage(CHANNEL, cardTs)))?.[0];
  check(via !== undefined, `the card says the session was started through MCP, naming n8n's client (${via})`);
  const offered = (model.requests[0]?.body?.tools ?? []).map((t) => t.function?.name);
  log(`  (the agent was offered ${offered.join(', ')}; the model was asked ${model.requests.length} times; ${((Date.now() - startedAt) / 1000).toFixed(0)} s)`);
}
