import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { sessionServer } from '../../../src/services/mcp/session-server.js';
import { SessionSlots } from '../../../src/services/mcp/session-slots.js';
import type { McpToolDeps, ToolCaller } from '../../../src/services/mcp/tools.js';
import { registerSessionTools } from '../../../src/services/mcp/tools.js';
import type { SessionWithPending } from '../../../src/store/index.js';
import type { Workspace } from '../../../src/workspace.js';
import { logger, session } from '../../fakes.js';

// get_session of a session whose key slot is known in the caller's workspace (a slot never changes) asks
// the service as the request's server is made, beside the store's read, and shows the answer only to
// someone that read lets see the session.
const north: Workspace = { key: 'T0NORTH', teamId: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
const south: Workspace = { key: 'T0SOUTH', teamId: 'T0SOUTH', isEnterpriseInstall: false, isolated: true };
const running = {
  status: 'running',
  cost: { totalCost: 0.5 },
  rounds: [{}],
  createdAt: '2026-11-22T12:00:00Z',
};
const ASKED = 'service read under person:U0ALICE';

/** The store's read held until `release`; every read recorded in `steps`, in order. */
function world() {
  const steps: string[] = [];
  let release = () => {};
  const found: SessionWithPending = {
    session: session({ sessionId: 'sess_1', startedBy: 'U0ALICE' }),
    pending: [],
    keyRef: 'person:U0ALICE',
  };
  const deps = {
    prompts: {
      sessionWithPending: async () => {
        steps.push('store read');
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        steps.push('store answered');
        return found;
      },
    },
    visibility: { maySee: async (userId: string) => userId === 'U0ALICE' },
    live: {
      status: async (_sessionId: string, keyRef: string | null | undefined) => {
        steps.push(`service read under ${keyRef}`);
        return running;
      },
      latestMessages: async () => [],
    },
    slots: new SessionSlots(),
    logger,
  } as unknown as McpToolDeps;
  /** Lets the store answer once its read has begun. */
  const answer = () => {
    release();
    return steps.includes('store read');
  };
  return { steps, deps, answer };
}

const ARGS = { session_id: 'sess_1', messages: 0 };

/** The caller as the endpoint makes it for a request whose one call is get_session with `args`. */
const callerOf = (userId: string, workspace: Workspace, args: unknown = ARGS, calls = 'get_session') =>
  ({
    tokenId: 't',
    userId,
    workspace,
    expiresAt: '2099-01-01T00:00:00Z',
    calls,
    callArguments: args,
  }) as ToolCaller;

/** A host calls get_session through the SDK; `answer` is polled until it says the store may answer. */
async function getSession(deps: McpToolDeps, caller: ToolCaller, answer: () => boolean) {
  const server = new McpServer({ name: 'bot', version: '1' });
  registerSessionTools(server, caller, deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'host', version: '1' });
  await client.connect(clientSide);
  const pending = client.callTool({ name: 'get_session', arguments: ARGS });
  await expect.poll(answer).toBe(true);
  const result = await pending;
  await client.close();
  return result as { isError?: boolean; structuredContent?: { live_status?: string | null } };
}

describe('get_session and the service', () => {
  it('first sight: the store’s read first; a session seen since: the service is asked before the store answers', async () => {
    const { steps, deps, answer } = world();
    const first = await getSession(deps, callerOf('U0ALICE', north), answer);
    expect(first.structuredContent?.live_status).toBe('running');
    expect(steps).toEqual(['store read', 'store answered', ASKED]);
    steps.length = 0;
    const again = await getSession(deps, callerOf('U0ALICE', north), () => steps.includes(ASKED) && answer());
    expect(again.structuredContent?.live_status).toBe('running');
    expect(steps).toEqual([ASKED, 'store read', 'store answered']);
  });

  it('someone the store’s read doesn’t let see it gets the not-found answer, the service’s unused', async () => {
    const { steps, deps, answer } = world();
    await getSession(deps, callerOf('U0ALICE', north), answer);
    steps.length = 0;
    const carol = await getSession(deps, callerOf('U0CAROL', north), answer);
    expect(steps[0]).toBe(ASKED);
    expect(carol.isError).toBe(true);
    expect(carol.structuredContent).toBeUndefined();
    expect(JSON.stringify(carol)).not.toContain('running');
    expect(JSON.stringify(carol)).toContain('that you can see');
  });

  it('a request that is not one get_session (a batch) reads the store first, as on first sight', async () => {
    const { steps, deps, answer } = world();
    await getSession(deps, callerOf('U0ALICE', north), answer);
    steps.length = 0;
    const batch = {
      tokenId: 't',
      userId: 'U0ALICE',
      workspace: north,
      expiresAt: '2099-01-01T00:00:00Z',
    } as ToolCaller;
    await getSession(deps, batch, answer);
    expect(steps).toEqual(['store read', 'store answered', ASKED]);
  });
});

describe('get_session asked ahead, as the request’s server is made', () => {
  /** Alice has seen sess_1 in the north workspace; then a server is made for `caller`. */
  async function madeFor(caller: ToolCaller) {
    const { steps, deps, answer } = world();
    await getSession(deps, callerOf('U0ALICE', north), answer);
    steps.length = 0;
    registerSessionTools(new McpServer({ name: 'bot', version: '1' }), caller, deps);
    return steps;
  }

  it('with the arguments as sent, before the SDK has dispatched the call', async () => {
    expect(await madeFor(callerOf('U0ALICE', north))).toEqual([ASKED]);
  });

  it.each([
    ['an id its schema refuses', { session_id: '', messages: 0 }],
    ['a count its schema refuses', { session_id: 'sess_1', messages: 99 }],
    ['no arguments object', 'sess_1'],
  ])('%s: nothing is asked before the SDK checks the call', async (_, args) => {
    expect(await madeFor(callerOf('U0ALICE', north, args))).toEqual([]);
  });

  it('another tool’s call, or another workspace’s request, asks nothing ahead', async () => {
    expect(await madeFor(callerOf('U0ALICE', north, ARGS, 'wait_for_session'))).toEqual([]);
    expect(await madeFor(callerOf('U0ALICE', south))).toEqual([]);
  });
});

describe('the request’s server, made while a read asked ahead is on its way', () => {
  /** As undici does with a kept-alive socket: the request handed over now is written on the loop's next turn. */
  async function order(caller: ToolCaller) {
    const { deps, answer } = world();
    await getSession(deps, callerOf('U0ALICE', north), answer);
    const seen: string[] = [];
    const status = deps.live.status;
    deps.live.status = (sessionId, keyRef) => {
      setImmediate(() => seen.push('request written'));
      return status(sessionId, keyRef);
    };
    await sessionServer(caller, deps, '1');
    seen.push('server made');
    await new Promise((resolve) => setImmediate(resolve));
    return { seen };
  }

  it('is handed to the SDK only after a turn of the loop, so the request leaves first', async () => {
    expect((await order(callerOf('U0ALICE', north))).seen).toEqual(['request written', 'server made']);
  });

  it('takes no turn when nothing was asked ahead', async () => {
    expect((await order(callerOf('U0ALICE', south))).seen).toEqual(['server made']);
  });
});
