import type { SlackbotReply } from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETUP_TIMEOUT_MS } from './harness.js';
import { homeOf } from './home-tab.js';
import { connectHost, tokenFromHome } from './mcp-client.js';
import { HOME, NORTH, type OAuthWorld, startOAuthWorld } from './oauth-world.js';

// With OAuth installs, an MCP token is its workspace's: from Northwind it reaches nothing of the home
// workspace, which answers it exactly as it answers an id that doesn't exist.
let w: OAuthWorld;
beforeAll(async () => {
  w = await startOAuthWorld({
    env: { AGENT_APPROVERS: 'S0APPROVERS,S0NAPPROVERS', MCP_SLACK_IDENTITY: 'true' },
  });
  await w.addBot();
  for (const team of [HOME.team, NORTH.team]) expect((await w.install(team)).status).toBe(200);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await w?.stop();
});

/** A JSON-RPC `ping` to the bot's /mcp with `token`: its status says whether the token still works. */
const pingWith = (bot: { url?: string }, token: string) =>
  fetch(`${bot.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('MCP across workspaces', () => {
  it("a token made in Northwind can't see, steer or answer the home workspace's session", async () => {
    const bot = w.bots[0];
    if (!bot) throw new Error('no bot');
    const url = `${bot.url}/mcp`;
    const { sessionId } = await w.start(HOME, 'scenario:approval a home secret');
    const home = await connectHost(
      url,
      await tokenFromHome(w.sandbox, w.driver(HOME.team), HOME.starter, HOME.team),
    );
    const homeSees = await home.call('get_session', { session_id: sessionId });
    expect(homeSees.isError, homeSees.text).toBe(false);

    const north = await connectHost(
      url,
      await tokenFromHome(w.sandbox, w.driver(NORTH.team), NORTH.starter, NORTH.team),
    );
    const unknown = (text: string) => text.replace(sessionId, 'X').replace('sess_made_up', 'X');
    const madeUp = await north.call('get_session', { session_id: 'sess_made_up' });
    for (const [tool, args] of [
      ['get_session', {}],
      ['wait_for_session', { timeout_seconds: 1 }],
      ['send_signal', { signal: 'cancel' }],
      ['answer_question', { approve: true }],
    ] as const) {
      const answer = await north.call(tool, { session_id: sessionId, ...args });
      expect(answer.isError, tool).toBe(true);
      expect(unknown(answer.text), tool).toBe(unknown(madeUp.text));
    }
    const listed = await north.call('list_sessions');
    expect(JSON.stringify(listed.data)).not.toContain(sessionId);
    // The home session is still running, untouched.
    const still = await home.call('get_session', { session_id: sessionId });
    expect((still.data.session as { finished: boolean }).finished).toBe(false);
    await home.close();
    await north.close();
  });

  it('a person Northwind deactivates loses their Northwind tokens (user_change, and users.info asked there); the home workspace’s go on working', async () => {
    const bot = w.bots[0];
    if (!bot) throw new Error('no bot');
    const FRANK = 'U0FRANK';
    const ping = (token: string) => pingWith(bot, token);
    const frankToken = await tokenFromHome(w.sandbox, w.driver(NORTH.team), FRANK, NORTH.team);
    const homeToken = await tokenFromHome(w.sandbox, w.driver(HOME.team), HOME.starter, HOME.team);
    // users.info is asked in each token's own workspace: both people are active there.
    expect((await ping(frankToken)).status).toBe(200);
    expect((await ping(homeToken)).status).toBe(200);
    const north = w.sandbox.workspaceFor(NORTH.team);
    const listed = () =>
      JSON.stringify(homeOf(w.sandbox, FRANK, NORTH.team)?.blocks ?? []).includes('mcp_token_');
    await north.waitFor(() => (listed() ? true : undefined), { what: 'Frank’s token on his Northwind Home' });
    const sent = await w.driver(NORTH.team).deactivateUser({ user: FRANK });
    expect(sent.deliveries[0]?.status).toBe(200);
    await north.waitFor(
      () =>
        JSON.stringify(homeOf(w.sandbox, FRANK, NORTH.team)?.blocks ?? []).includes('mcp_token_')
          ? undefined
          : true,
      { what: 'Frank’s tokens gone from his Northwind Home' },
    );
    expect((await ping(frankToken)).status).toBe(401);
    expect((await ping(homeToken)).status).toBe(200);
  });

  it('uninstalling the app from Northwind revokes its MCP tokens; the home workspace’s go on working', async () => {
    const bot = w.bots[0];
    if (!bot) throw new Error('no bot');
    const ping = (token: string) => pingWith(bot, token);
    const northToken = await tokenFromHome(w.sandbox, w.driver(NORTH.team), NORTH.starter, NORTH.team);
    const homeToken = await tokenFromHome(w.sandbox, w.driver(HOME.team), HOME.starter, HOME.team);
    expect((await ping(northToken)).status).toBe(200);
    // Its installation gone (and nothing heard of it yet): the token is refused, saying why.
    const installation = await bot.store.installations.find(NORTH.team);
    await bot.store.installations.remove(NORTH.team);
    const unserved = await ping(northToken);
    expect(unserved.status).toBe(403);
    expect(JSON.stringify(await unserved.json())).toMatch(/no longer served by this bot/);
    if (installation) await bot.store.installations.save(installation);
    expect((await ping(northToken)).status).toBe(200);
    const result = await w.sandbox.oauth?.uninstall(NORTH.team, { eventsUrl: bot.eventsUrl });
    expect(result?.events.flatMap((e) => e.deliveries.map((d) => d.status))).toEqual([200, 200]);
    const refused = await ping(northToken);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(await refused.json())).toMatch(/unknown, revoked or expired/);
    expect((await ping(homeToken)).status).toBe(200);
  });

  it('through Slackbot, a Northwind person reaches nothing of the home workspace; a team not installed or not admitted is refused', async () => {
    const bot = w.bots[0];
    if (!bot) throw new Error('no bot');
    // Northwind installs the app again (the test before uninstalled it).
    expect((await w.install(NORTH.team)).status).toBe(200);
    const { sessionId } = await w.start(HOME, 'scenario:approval a home plan');
    const result = async (reply: Promise<SlackbotReply>) => {
      const answered = await reply;
      expect(answered.status, answered.text).toBe(200);
      const content = (answered.message?.result?.content ?? []) as Array<{ text?: string }>;
      return {
        isError: answered.message?.result?.isError === true,
        text: content.map((c) => c.text).join(''),
      };
    };
    const home = w.driver(HOME.team).slackbot;
    expect(
      (await result(home.callTool(HOME.starter, 'get_session', { session_id: sessionId }))).isError,
    ).toBe(false);
    const north = w.driver(NORTH.team).slackbot;
    const seen = await result(north.callTool(NORTH.starter, 'get_session', { session_id: sessionId }));
    const madeUp = await result(north.callTool(NORTH.starter, 'get_session', { session_id: 'sess_made_up' }));
    expect(seen.isError).toBe(true);
    expect(seen.text.replace(sessionId, 'X')).toBe(madeUp.text.replace('sess_made_up', 'X'));
    const listed = await north.callTool(NORTH.starter, 'list_sessions');
    expect(listed.text).not.toContain(sessionId);
    const answered = await result(
      north.callTool(NORTH.starter, 'answer_question', { session_id: sessionId, approve: true }),
    );
    expect(answered.isError).toBe(true);
    // A team the app was never installed in: refused before any tool runs, and nothing of the session said.
    const stranger = await north.request(
      NORTH.starter,
      'tools/call',
      { name: 'get_session', arguments: { session_id: sessionId } },
      { teamId: 'T0NOWHERE' },
    );
    expect(stranger.status).toBe(403);
    expect(stranger.text).not.toContain(sessionId);
    // A replica that admits the home workspace only (SLACK_ALLOWED_TEAMS): Northwind's person is refused.
    const homeOnly = await w.addBot({}, { SLACK_ALLOWED_TEAMS: HOME.team });
    const unadmitted = await w.driver(NORTH.team, homeOnly).slackbot.callTool(NORTH.starter, 'list_sessions');
    expect(unadmitted.status).toBe(403);
    expect(unadmitted.message?.error?.message).toMatch(/not served by this bot/);
    const admitted = await w.driver(HOME.team, homeOnly).slackbot.callTool(HOME.starter, 'list_sessions');
    expect(admitted.status, admitted.text).toBe(200);
    expect(admitted.text).toContain(sessionId);
  });
});
