// A scripted OpenAI-compatible chat model for n8n's AI Agent: its first answer calls the one tool it is
// given (a goal from the user's words), and once the tool has answered it says what came back. Serves
// `POST /v1/chat/completions`, plain or streamed, and records what it was asked.
import { createServer } from 'node:http';

/**
 * Arguments for the tool, from its JSON schema: every string gets the user's words, numbers 1, objects
 * their properties so filled (n8n's human-review tool nests the reviewed tool's parameters in one).
 */
function valueFor(schema, goal) {
  if (schema?.type === 'object' || schema?.properties) {
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, inner]) => [name, valueFor(inner, goal)]));
  }
  if (schema?.type === 'number' || schema?.type === 'integer') return 1;
  if (schema?.type === 'boolean') return false;
  return goal;
}
const argumentsFor = (tool, goal) => valueFor(tool?.function?.parameters ?? {}, goal);

function answerTo(body) {
  const messages = body.messages ?? [];
  const lastTool = [...messages].reverse().find((m) => m.role === 'tool');
  if (lastTool) {
    const content = typeof lastTool.content === 'string' ? lastTool.content : JSON.stringify(lastTool.content);
    return { message: { role: 'assistant', content: `The tool answered: ${content.slice(0, 500)}` }, finish: 'stop' };
  }
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const goal = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  const [tool] = body.tools ?? [];
  if (!tool) return { message: { role: 'assistant', content: 'I have no tool to call.' }, finish: 'stop' };
  const call = { id: 'call_agent_sessions_1', type: 'function', function: { name: tool.function.name, arguments: JSON.stringify(argumentsFor(tool, goal)) } };
  return { message: { role: 'assistant', content: null, tool_calls: [call] }, finish: 'tool_calls' };
}

/** `answer`: the script, from the request's body to the next message (the default calls the one tool once). */
export function startModel(answer = answerTo) {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      requests.push({ path: req.url, body });
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
        return;
      }
      const { message, finish } = answer(body);
      const base = { id: `chatcmpl-${requests.length}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'scripted' };
      const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const delta = message.tool_calls ? { role: 'assistant', tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) } : { role: 'assistant', content: message.content };
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/v1`, requests, stop: () => server.close() });
    });
  });
}
