import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answersInJson, withJsonAnswers } from '../../../src/services/mcp/json-answers.js';

// 2025-era requests as a host sends them, straight to the fetch-shaped handler.
const factory = () => {
  const server = new McpServer({ name: 'test', version: '1' });
  server.registerTool(
    'echo',
    { inputSchema: z.object({ said: z.string() }), outputSchema: z.object({ said: z.string() }) },
    ({ said }) => ({ content: [{ type: 'text', text: said }], structuredContent: { said } }),
  );
  return server;
};
const handler = withJsonAnswers(createMcpHandler(factory), factory, { maxBodyBytes: 65_536 });

async function send(body: unknown): Promise<{ type: string; text: string; status: number }> {
  const request = new Request('http://bot.example/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
  const response = await handler.fetch(request, { parsedBody: body });
  return {
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
    status: response.status,
  };
}

const call = (id: number, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe('2025-era answers in one JSON body', () => {
  it('a tool call that holds nothing open is answered as JSON, with the result the stream would carry', async () => {
    const answer = await send(call(1, { said: 'hi' }));
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^application\/json/);
    expect(JSON.parse(answer.text)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { structuredContent: { said: 'hi' } },
    });
    // Refused input is the SDK's own answer, in the same form.
    const refused = JSON.parse((await send(call(2, { said: 3 }))).text);
    expect(refused).toMatchObject({ id: 2, result: { isError: true } });
  });

  it('a call asking for progress, or one held open, keeps the SDK’s SSE stream', async () => {
    const progress = await send(call(3, { said: 'hi' }, { progressToken: 'p1' }));
    expect(progress.type).toMatch(/^text\/event-stream/);
    expect(progress.text).toMatch(/"said":"hi"/);
    const wait = await send({ ...call(4, {}), params: { name: 'wait_for_session', arguments: {} } });
    expect(wait.type).toMatch(/^text\/event-stream/);
  });

  it('decides from the body alone: nothing held open, no progress asked, a JSON-RPC message at all', () => {
    expect(answersInJson(call(1, {}))).toBe(true);
    expect(answersInJson([call(1, {}), { jsonrpc: '2.0', method: 'notifications/initialized' }])).toBe(true);
    expect(answersInJson([call(1, {}), call(2, {}, { progressToken: 7 })])).toBe(false);
    expect(answersInJson({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen' })).toBe(false);
    expect(answersInJson([])).toBe(false);
    expect(answersInJson('not json')).toBe(false);
    expect(answersInJson(undefined)).toBe(false);
  });
});
