import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** An MCP host as bench:mcp drives it: the official SDK's Client over Streamable HTTP, with a bearer token. */
export interface Host {
  client: Client;
  /** A tool's structured content; a refusal (isError) throws, naming the tool and its text. */
  call(
    tool: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function connectHost(url: string, token: string, name = 'bench-mcp'): Promise<Host> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }),
  );
  return {
    client,
    async call(tool, args, options = {}) {
      const result = await client.callTool(
        { name: tool, arguments: args },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
        },
      );
      if (result.isError) {
        const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join(' ');
        throw new Error(`${tool} was refused: ${text}`);
      }
      return (result.structuredContent ?? {}) as Record<string, unknown>;
    },
    close: () => client.close(),
  };
}
