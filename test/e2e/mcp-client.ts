import type { RunningSandbox, SlackDriver } from '@agent-sessions/slack-sandbox';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { homeOf, pressInHome } from './home-tab.js';

/** What a tool answered: its structured content, or the text of a refusal. */
export interface ToolAnswer {
  isError: boolean;
  text: string;
  data: Record<string, unknown>;
}

/**
 * An MCP host that is not ours: the official SDK's Client over Streamable HTTP, sending the token as
 * `Authorization: Bearer`, named `name` (the audit's "via MCP, <name>").
 */
export async function connectHost(
  url: string,
  token: string,
  name = 'e2e-host',
): Promise<Client & { call(tool: string, args?: Record<string, unknown>): Promise<ToolAnswer> }> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }),
  );
  return Object.assign(client, {
    async call(tool: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
      const result = await client.callTool({ name: tool, arguments: args });
      const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return {
        isError: result.isError === true,
        text,
        data: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
  });
}

/**
 * A token as a person makes one: their Home tab opened, "Connect an agent host" pressed, the token read
 * from the modal that shows it once.
 */
export async function tokenFromHome(
  sandbox: RunningSandbox,
  driver: SlackDriver,
  user: string,
  team?: string,
): Promise<string> {
  const ws = team ? sandbox.workspaceFor(team) : sandbox.workspace;
  await driver.appHomeOpened({ user });
  await ws.waitFor(
    () => (/mcp_connect/.test(JSON.stringify(homeOf(sandbox, user, team)?.blocks ?? [])) ? true : undefined),
    {
      what: `${user}'s Home with "Connect an agent host"`,
    },
  );
  const before = driver.openModal(user)?.id;
  const pressed = await pressInHome(sandbox, driver, user, 'mcp_connect', team);
  if (pressed.status !== 200) throw new Error(`pressing Connect answered ${pressed.status}`);
  const modal = await ws.waitFor(
    () => {
      const open = driver.openModal(user);
      return open && open.id !== before && /asm_mcp_/.test(JSON.stringify(open.blocks)) ? open : undefined;
    },
    { what: 'the modal showing the new token' },
  );
  const token = /asm_mcp_[A-Za-z0-9_-]+/.exec(JSON.stringify(modal.blocks))?.[0];
  if (!token) throw new Error('no token in the modal');
  return token;
}
