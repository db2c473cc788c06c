import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, useHarness, WAIT_MS } from './harness.js';
import { connectHost, tokenFromHome } from './mcp-client.js';

// A host that gives up on a wait_for_session call frees its slot at once, not at the call's timeout:
// one open wait a person here, and a wait may last 300 s, far past how long these tests wait.
const h = useHarness({
  env: { MCP_REQUESTS_PER_MINUTE: '1000', MCP_WAITS_PER_PERSON: '1', MCP_WAIT_MAX_SECONDS: '300' },
});
const url = () => `${h.bot.url}/mcp`;

type Host = Awaited<ReturnType<typeof connectHost>>;

/**
 * A wait as long as the bot allows, which the host may abort; `open` resolves at its first progress
 * notification (the long scenario works all the time): the wait is then inside the tool, holding the slot.
 */
function longWait(host: Client, sessionId: string, signal: AbortSignal) {
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const call = host.callTool(
    { name: 'wait_for_session', arguments: { session_id: sessionId, timeout_seconds: 300 } },
    { signal, timeout: 400_000, onprogress: () => opened() },
  );
  return { call, open };
}

/** A one-second wait: admitted (it returns), or refused because the person's one slot is held (it throws). */
async function admitted(host: Client, sessionId: string): Promise<boolean> {
  try {
    await host.callTool({
      name: 'wait_for_session',
      arguments: { session_id: sessionId, timeout_seconds: 1 },
    });
    return true;
  } catch (error) {
    if (/one person may \(1\)/.test(String(error))) return false;
    throw error;
  }
}

/** Until a wait of the person's is admitted again (their slot freed), at most WAIT_MS. */
async function slotFreed(host: Client, sessionId: string): Promise<void> {
  const until = Date.now() + WAIT_MS;
  while (!(await admitted(host, sessionId)))
    if (Date.now() > until) throw new Error(`the slot was still held after ${WAIT_MS} ms`);
}

async function busySession(host: Host): Promise<string> {
  const started = await host.call('start_session', { goal: 'scenario:long keep busy' });
  expect(started.isError, started.text).toBe(false);
  return String(started.data.session_id);
}

/** `host` waits on the session and gives up: `other`, its person's other host, is refused a wait, then admitted. */
async function expectGivingUpFreesTheSlot(host: Client, other: Client, sessionId: string): Promise<void> {
  const abort = new AbortController();
  const waiting = longWait(host, sessionId, abort.signal);
  await waiting.open;
  expect(await admitted(other, sessionId)).toBe(false);
  abort.abort('the host gave up');
  await expect(waiting.call).rejects.toThrow();
  await slotFreed(other, sessionId);
}

describe('MCP: a wait its host cancels', () => {
  it('a 2025-era host cancels with notifications/cancelled in a POST of its own: the wait ends and its slot is free', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, ALICE);
    const [alice, again] = [await connectHost(url(), token), await connectHost(url(), token)];
    const sessionId = await busySession(alice);
    // Before, the bot could not match the cancel to the call: the slot stayed held for the wait's 300 s.
    await expectGivingUpFreesTheSlot(alice, again, sessionId);
    await alice.call('send_signal', { session_id: sessionId, signal: 'cancel' });
    await Promise.all([alice.close(), again.close()]);
  });

  it('a 2026-era host cancels by closing the call’s request: its slot is free', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, BOB);
    const bob = await connectHost(url(), token);
    const modern = new Client(
      { name: 'modern-host', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(url()), { authProvider: { token: async () => token } }),
    );
    const sessionId = await busySession(bob);
    await expectGivingUpFreesTheSlot(modern, bob, sessionId);
    await bob.call('send_signal', { session_id: sessionId, signal: 'cancel' });
    await Promise.all([bob.close(), modern.close()]);
  });
});
