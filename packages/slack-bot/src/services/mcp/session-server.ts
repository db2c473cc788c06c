import { McpServer } from '@modelcontextprotocol/server';
import { type McpToolDeps, registerSessionTools, type ToolCaller } from './tools.js';

/**
 * One request's MCP server: the six session tools, acting as `caller`. The tools never change, so no
 * list_changed to listen for: the SDK ends a subscriptions/listen stream as soon as it has acknowledged it.
 */
export function sessionServer(caller: ToolCaller, tools: McpToolDeps, version: string): McpServer {
  const server = new McpServer(
    { name: 'agent-sessions', version },
    { capabilities: { tools: { listChanged: false } } },
  );
  registerSessionTools(server, caller, tools);
  return server;
}
