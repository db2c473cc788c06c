import type { McpServer } from '@modelcontextprotocol/server';
import { registerActingTools } from './acting-tools.js';
import { withSharedOutputJson } from './output-json.js';
import { registerReadingTools } from './reading-tools.js';
import type { McpToolDeps, ToolCaller } from './tool-deps.js';

export type { McpToolDeps, MessageView, ToolCaller } from './tool-deps.js';

/**
 * The six tools, registered on a server made for one request of one caller; for a request that calls
 * one of them (`caller.calls`), that one only: the server lives as long as the call (a wait's, minutes)
 * and answers nothing else, and the other five cost a held wait about 8 KB.
 */
export function registerSessionTools(
  server: McpServer,
  caller: ToolCaller,
  deps: McpToolDeps,
): { readingAhead: boolean } {
  const only = caller.calls;
  const wants = (name: string) => only === undefined || !TOOL_NAMES.has(only) || name === only;
  const sharing = withSharedOutputJson(server);
  const reading = registerReadingTools(sharing, caller, deps, wants);
  registerActingTools(sharing, caller, deps, wants);
  return reading;
}

const TOOL_NAMES = new Set([
  'get_session',
  'list_sessions',
  'wait_for_session',
  'start_session',
  'send_signal',
  'answer_question',
]);
