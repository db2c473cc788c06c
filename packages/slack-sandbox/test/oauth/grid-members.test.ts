import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridSeeds, type RunningSandbox, startSandbox, withGridMember } from '../../src/index.js';
import { installInto, sandboxClient } from './installed.js';

/** Enterprise Grid: one person in two workspaces of the organisation, an admin of one of them only. */

let sandbox: RunningSandbox;
const tokens: Record<string, string> = {};

const client = (token?: string) => sandboxClient(sandbox, token);

beforeAll(async () => {
  const seeds = withGridMember(gridSeeds(), {
    id: 'U0HANK',
    name: 'hank',
    home: 'T0GSALES',
    teams: ['T0GSALES', 'T0GOPS'],
    adminOf: ['T0GSALES'],
  });
  sandbox = await startSandbox({
    oauth: { redirectUrls: ['http://127.0.0.1:9/cb'] },
    workspaces: seeds,
    rateLimits: false,
  });
  Object.assign(tokens, await installInto(sandbox, ['T0GSALES', 'T0GOPS'], ['users:read']));
});
afterAll(async () => {
  await sandbox?.close();
});

describe('a Grid member of two workspaces', () => {
  it('has one id in both, their home team everywhere, and is admin only where they are', async () => {
    const sales = await client(tokens.T0GSALES).users.info({ user: 'U0HANK' });
    expect(sales.user).toMatchObject({ id: 'U0HANK', team_id: 'T0GSALES', is_admin: true });
    const ops = await client(tokens.T0GOPS).users.info({ user: 'U0HANK' });
    expect(ops.user).toMatchObject({ id: 'U0HANK', team_id: 'T0GSALES' });
    expect(ops.user?.is_admin).toBeUndefined();
    // Someone of one workspace only is unknown to the other's token.
    expect(
      await client(tokens.T0GOPS)
        .users.info({ user: 'U0GINA' })
        .catch((e: { data?: { error?: string } }) => e.data?.error),
    ).toBe('user_not_found');
  });
});
