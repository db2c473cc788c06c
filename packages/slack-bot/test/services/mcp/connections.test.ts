import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LISTED, MCP_ACTIONS } from '../../../src/blocks/mcp.js';
import { openPglite, SqlStore } from '../../../src/index.js';
import { createLogger } from '../../../src/logger.js';
import { SecretScrubber } from '../../../src/secret-scrubber.js';
import { MAX_LIVE_TOKENS, McpConnections, McpTokens } from '../../../src/services/mcp/index.js';
import { inWorkspace, type Workspace } from '../../../src/workspace.js';

const NORTH: Workspace = { teamId: 'T0NORTH', key: 'T0NORTH', isEnterpriseInstall: false, isolated: true };

let store: SqlStore;
let connections: McpConnections;
let tokens: McpTokens;
const secrets = new SecretScrubber();
/** The workspace's key admin here. */
const ADMIN = 'U0ADMIN';
beforeAll(async () => {
  store = await SqlStore.open(await openPglite(undefined));
  tokens = new McpTokens({ tokens: store.mcpTokens, settings: { ttlDays: 90, isolated: true } });
  connections = new McpConnections({
    tokens,
    url: undefined,
    secrets,
    isAdmin: async (userId) => userId === ADMIN,
    changed: () => {},
    logger: createLogger({ secrets: [], level: 'silent' }),
  });
});
afterAll(() => store.close());

const connect = (userId: string) => inWorkspace(NORTH, () => connections.connect(userId));
const revokeButtons = async (userId: string) => {
  const blocks = await inWorkspace(NORTH, () => connections.homeBlocks(userId));
  return blocks.filter(
    (b) =>
      b.type === 'section' && b.accessory?.type === 'button' && b.accessory.action_id === MCP_ACTIONS.revoke,
  );
};

describe('App Home’s MCP tokens', () => {
  it(`at most ${MAX_LIVE_TOKENS} working tokens a person: the next is refused, saying to revoke one; each is listed to revoke`, async () => {
    expect(MAX_LISTED).toBeGreaterThanOrEqual(MAX_LIVE_TOKENS);
    for (let i = 0; i < MAX_LIVE_TOKENS; i++) expect((await connect('U1')).ok).toBe(true);
    const refused = await connect('U1');
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/revoke one/) });
    const listed = await revokeButtons('U1');
    expect(listed).toHaveLength(MAX_LIVE_TOKENS);
    // Another person in the workspace still makes theirs.
    expect((await connect('U2')).ok).toBe(true);
    // One revoked: a new one can be made.
    const first = listed[0];
    const id =
      first?.type === 'section' && first.accessory?.type === 'button' ? first.accessory.value : undefined;
    expect((await inWorkspace(NORTH, () => connections.revoke('U1', id))).ok).toBe(true);
    expect((await connect('U1')).ok).toBe(true);
  });

  it('a new token is scrubbed from the logs from the moment it is made (the WebClient logs the modal at debug)', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      secrets: [],
      scrubber: secrets,
      level: 'debug',
      destination: { write: (line: string) => lines.push(line) > 0 } as unknown as NodeJS.WritableStream,
    });
    const made = await connect('U3');
    if (!made.ok) throw new Error(made.message);
    const shown = JSON.stringify(made.view);
    const token = /asm_mcp_[A-Za-z0-9_-]+/.exec(shown)?.[0];
    expect(token).toBeDefined();
    logger.debug(`http request body: ${shown}`);
    expect(lines.join('')).toContain('http request body');
    expect(lines.join('')).not.toContain(token);
  });

  it('a key admin sees who holds tokens and revokes all of one person’s; anyone else is refused and sees no one’s', async () => {
    const made = await connect('U4');
    if (!made.ok) throw new Error(made.message);
    const token = /asm_mcp_[A-Za-z0-9_-]+/.exec(JSON.stringify(made.view))?.[0] ?? '';
    const adminHome = await inWorkspace(NORTH, () => connections.homeBlocks(ADMIN));
    const line = adminHome.find((b) => b.block_id === 'mcp_holder_U4');
    expect(line).toMatchObject({ accessory: { action_id: MCP_ACTIONS.revokePerson, value: 'U4' } });
    const othersHome = JSON.stringify(await inWorkspace(NORTH, () => connections.homeBlocks('U2')));
    expect(othersHome).not.toContain('mcp_holder_');
    const refused = await inWorkspace(NORTH, () => connections.revokePerson('U2', 'U4'));
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/admins/) });
    expect(await tokens.verify(token)).toBeDefined();
    expect((await inWorkspace(NORTH, () => connections.revokePerson(ADMIN, 'U4'))).ok).toBe(true);
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it('a person Slack says was deactivated (user_change) loses every token in that workspace', async () => {
    const made = await connect('U5');
    if (!made.ok) throw new Error(made.message);
    const token = /asm_mcp_[A-Za-z0-9_-]+/.exec(JSON.stringify(made.view))?.[0] ?? '';
    await inWorkspace(NORTH, () => connections.left('U5'));
    expect(await tokens.verify(token)).toBeUndefined();
  });
});
