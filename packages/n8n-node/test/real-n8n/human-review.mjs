// n8n 2.x's human review of AI tool calls, with the node as the tool: an AI Agent (on the scripted model)
// calls Create and Wait through n8n's chat review gate (chatHitlTool). n8n holds the call and posts an
// approval message with Approve / Decline links in the chat; the test follows a link as the chat page's
// buttons do. Approved, the session is created and the agent finishes; declined, none is created.
import { fetch, until } from './server.mjs';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

const sessionsWithGoal = async (emulatorUrl, goal) =>
  (await (await fetch(`${emulatorUrl}/_emulator/sessions`)).json()).sessions.filter((s) => s.goal.includes(goal));

/** Finds the execution the chat message started, waiting for the review, and the review's buttons. */
async function awaitingReview(rest, readExecutionData, since) {
  const filter = encodeURIComponent(JSON.stringify({ workflowId: 'asHumanReview1' }));
  const waiting = await until(
    'the execution to wait for the review',
    async () => (await rest.get(`/rest/executions?filter=${filter}`)).data.results.find((e) => Number(e.id) > since && e.status === 'waiting'),
    (e) => e !== undefined,
    90,
  );
  const execution = (await rest.get(`/rest/executions/${waiting.id}`)).data;
  const data = readExecutionData(execution.data);
  const runs = data?.resultData?.runData?.['Review the agent session'] ?? [];
  const message = runs.at(-1)?.data?.main?.[0]?.[0]?.sendMessage ?? runs.at(-1)?.data?.ai_tool?.[0]?.[0]?.sendMessage;
  return { id: waiting.id, message, data };
}

export async function humanReview({ base, emulatorUrl, rest, model, check, log, readExecutionData }) {
  let last = 0;
  for (const decision of ['Approve', 'Decline']) {
    log(`human review of the tool call: ${decision}`);
    const goal = `scenario:complete Review ${decision}d: tidy the changelog`;
    const chat = await fetch(`${base}/webhook/agent-sessions-review/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'sendMessage', sessionId: `review-${decision}`, chatInput: goal }),
    });
    log(`  (chat answered ${chat.status}: ${(await chat.text()).slice(0, 300)})`);
    const review = await awaitingReview(rest, readExecutionData, last);
    last = Number(review.id);
    log(`  (review message: ${JSON.stringify(review.message)?.slice(0, 600)})`);
    check(Array.isArray(review.message?.buttons), `${decision}: n8n holds the tool call and asks in the chat, with buttons`);
    // The reviewer reads the tool's inputs as text (the workflow's message stringifies $tool.parameters).
    const shown = JSON.stringify(review.message ?? '');
    check(shown.includes(goal) && !shown.includes('[object Object]'), `${decision}: the review shows the tool's inputs, the goal among them`);
    check((await sessionsWithGoal(emulatorUrl, goal)).length === 0, `${decision}: no session before the review`);
    const button = review.message?.buttons?.find((b) => new RegExp(decision, 'i').test(b.text));
    if (!button) continue;
    // As a person's browser: n8n ignores approval links fetched by bots (link previews), and Node's
    // fetch says `node`, which n8n counts as one.
    const followed = await fetch(button.link, { headers: { 'user-agent': BROWSER } });
    const page = await followed.text();
    check(followed.status === 200 && page.length > 0, `${decision}: n8n took the answer (${followed.status}, ${page.length} bytes)`);
    // Approved, the tool runs (Create and Wait: the session is created and waited for) and the agent
    // replies; declined, the agent is told and replies. Either way the model is asked again, with the
    // tool's answer: then the chat's Reply step waits for the chat page (which this test doesn't open).
    const asked = model.requests.length;
    await until('the agent to answer after the review', async () => model.requests.length, (n) => n > asked, 120);
    const toolAnswer = JSON.stringify(model.requests.at(-1)?.body?.messages?.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
    log(`  (the tool answered the agent: ${toolAnswer.slice(0, 300)})`);
    const sessions = await sessionsWithGoal(emulatorUrl, goal);
    if (decision === 'Approve') {
      check(sessions.length === 1 && sessions[0].status === 'completed', `Approve: the session was created and completed (${sessions.map((s) => s.status).join(', ') || 'none'})`);
      check(toolAnswer.includes(sessions[0]?.sessionId ?? '(none)'), 'Approve: the agent got the finished session from the tool');
    } else {
      check(sessions.length === 0, `Decline: no session was created (${sessions.length})`);
    }
  }
  const [tool] = model.requests[0]?.body?.tools ?? [];
  log(`  (the scripted model was asked ${model.requests.length} times; the tool it was offered: ${JSON.stringify(tool?.function ?? null).slice(0, 400)})`);
}
