import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';

/**
 * Each output schema's JSON Schema, converted once per schema object: the SDK memoises it per registered
 * tool, and each request (stateless MCP: a fresh server) registers its tools anew, so every call paid for
 * a conversion (zod's toJSONSchema: about a tenth of a `get_session`'s time in the bot). The schemas are
 * module constants; the JSON is only read (the wire codec checks its root), so one copy serves every call.
 */
const converted = new WeakMap<object, Record<string, unknown> | undefined>();

function sharing(tool: RegisteredTool): RegisteredTool {
  const schema = tool.outputSchema;
  if (!schema) return tool;
  if (converted.has(schema)) tool.outputSchemaJson = converted.get(schema);
  else converted.set(schema, tool.outputSchemaJson);
  return tool;
}

/** `server`, its tools registered from now on sharing their output schema's JSON with earlier servers'. */
export function withSharedOutputJson(server: McpServer): McpServer {
  const register = server.registerTool.bind(server);
  server.registerTool = ((...args: Parameters<typeof register>) =>
    sharing(register(...args))) as typeof server.registerTool;
  return server;
}
