import { setImmediate as nextTurn } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/server';
import { type McpToolDeps, registerSessionTools, type ToolCaller } from './tools.js';

/**
 * One request's MCP server: the six session tools, acting as `caller`. The tools never change, so no
 * list_changed to listen for: the SDK ends a subscriptions/listen stream as soon as it has acknowledged it.
 */
export async function sessionServer(
  caller: ToolCaller,
  tools: McpToolDeps,
  version: string,
): Promise<McpServer> {
  const server = new McpServer(
    { name: 'agent-sessions', version },
    { capabilities: { tools: { listChanged: false } } },
  );
  const { readingAhead } = registerSessionTools(server, caller, tools);
  // A service read begun for the call (get_session's) is written by undici on the next turn of the event
  // loop: the SDK's work on the request waits that turn, so it runs while the service answers.
  if (readingAhead) await nextTurn();
  return server;
}
