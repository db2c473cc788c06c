import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, textOf, useHarness } from './harness.js';
import { homeOf, homeText } from './home-tab.js';
import { tokenFromHome } from './mcp-client.js';

// A token outlives nothing: a person Slack deactivates stops acting through their agent hosts, by
// Slack's user_change at once, or at their next request when the bot never heard it (users.info);
// a workspace's key admins revoke anyone's tokens from App Home. Against the real bot and sandbox.
const h = useHarness({ env: { MCP_REQUESTS_PER_MINUTE: '1000' } });
const url = () => `${h.bot.url}/mcp`;

/** One JSON-RPC request to /mcp with `token`, as any host sends it. */
const rpc = (token: string, method: string, params: Record<string, unknown> = {}) =>
  fetch(url(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

const hintOf = (token: string) => token.slice(0, 'asm_mcp_'.length + 4);

/** Waits until `user`'s Home tab lists the token (drawn again after it is made). */
const shownOnHome = (user: string, token: string) =>
  h.sandbox.workspace.waitFor(
    () => (homeText(homeOf(h.sandbox, user)).includes(hintOf(token)) ? true : undefined),
    {
      what: `${user}'s new token on their Home`,
    },
  );

/** Waits until `user`'s Home tab no longer lists the token (the bot draws it again once it is revoked). */
const goneFromHome = (user: string, token: string, what: string) =>
  h.sandbox.workspace.waitFor(
    () => (homeText(homeOf(h.sandbox, user)).includes(hintOf(token)) ? undefined : true),
    {
      what,
    },
  );

describe('MCP tokens of people who leave', () => {
  it('a key admin sees who holds tokens on App Home and revokes all of one person’s; others see no one’s', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, ALICE);
    expect((await rpc(token, 'tools/list')).status).toBe(200);
    await shownOnHome(ALICE, token);
    // Bob is an approver (AGENT_APPROVERS): he manages the workspace's key, and so others' tokens.
    await h.driver.appHomeOpened({ user: BOB });
    const home = await h.sandbox.workspace.waitFor(
      () => {
        const view = homeOf(h.sandbox, BOB);
        return homeText(view).includes(`mcp_holder_${ALICE}`) ? view : undefined;
      },
      { what: 'Alice listed among token holders on Bob’s Home' },
    );
    expect(homeText(home)).not.toContain(hintOf(token));
    await h.driver.appHomeOpened({ user: CAROL });
    await h.sandbox.workspace.waitFor(
      () => (/mcp_connect/.test(homeText(homeOf(h.sandbox, CAROL))) ? true : undefined),
      {
        what: 'Carol’s Home',
      },
    );
    expect(homeText(homeOf(h.sandbox, CAROL))).not.toContain('mcp_holder_');
    const pressed = await h.driver.actInView({
      user: BOB,
      viewId: home.id,
      actionId: 'mcp_revoke_person',
      blockId: `mcp_holder_${ALICE}`,
    });
    expect(pressed.status).toBe(200);
    await goneFromHome(ALICE, token, 'Alice’s token gone from her Home');
    expect((await rpc(token, 'tools/list')).status).toBe(401);
  });

  it('Slack’s user_change for a deactivated person revokes their tokens at once, before any request of theirs', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, ALICE);
    expect((await rpc(token, 'tools/list')).status).toBe(200);
    await shownOnHome(ALICE, token);
    const sent = await h.driver.deactivateUser({ user: ALICE });
    expect(sent.deliveries[0]?.status).toBe(200);
    await goneFromHome(ALICE, token, 'the deactivated person’s token gone from her Home');
    // Revoked by the event (401: an unknown token), not refused by the request's own check (403).
    expect((await rpc(token, 'tools/list')).status).toBe(401);
  });

  it('a token whose person Slack deactivated, the event missed, is refused 403 on its next request: nothing reaches the service, their tokens are revoked', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, CAROL);
    // Slack deactivates Carol, and its user_change never reaches the bot (a delivery lost, the bot down).
    h.sandbox.workspace.deactivate(CAROL);
    const creates = async () => (await h.emulator.admin.stats()).requests['POST /v1/sessions'] ?? 0;
    const before = await creates();
    const refused = await rpc(token, 'tools/call', {
      name: 'start_session',
      arguments: { goal: 'scenario:complete a leaver’s last session', channel: 'C0GENERAL' },
    });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toMatch(/deactivated or no longer in the workspace/);
    expect(await creates()).toBe(before);
    const general = h.sandbox.workspace.messages.get('C0GENERAL') ?? [];
    expect(general.filter((m) => textOf(m).includes('a leaver’s last session'))).toEqual([]);
    // Their tokens were revoked with the refusal: the next request is an unknown token's.
    expect((await rpc(token, 'tools/list')).status).toBe(401);
  });

  it('subscriptions/listen: the bot’s tools never change, so a listen is acknowledged and ended at once', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, BOB);
    const client = new Client(
      { name: 'modern-host', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url()), { authProvider: { token: async () => token } }),
    );
    const listening = await client.listen({ toolsListChanged: true });
    expect(listening.honoredFilter).toEqual({});
    expect(await listening.closed).toBe('graceful');
    await client.close();
  });
});
