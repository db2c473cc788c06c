import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approval } from '../../../../../test/support/questions.js';
import { createLogger } from '../../../src/logger.js';
import { AuditService, answerDetail, describeRecord } from '../../../src/services/ops/audit.js';
import type { AuditEntry, AuditRecord, AuditRepository } from '../../../src/store/audit.js';

const logger = createLogger({ secrets: [], level: 'silent' });

/** The repository's contract in memory (its SQL is tested on both databases in test/store). */
function memoryAudit(): AuditRepository & { records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  return {
    records,
    append: async (e: AuditEntry) => {
      records.push({
        id: records.length + 1,
        at: new Date(Date.UTC(2026, 0, 1, 0, records.length)).toISOString(),
        inputId: null,
        teamId: null,
        channelId: null,
        threadTs: null,
        detail: null,
        httpStatus: null,
        requestId: null,
        ...e,
      } as AuditRecord);
    },
    list: async ({ sessionId, after, limit }) =>
      records
        .filter((r) => (!sessionId || r.sessionId === sessionId) && (after === undefined || r.id > after))
        .slice(0, limit ?? 10_000),
    latest: async (sessionId, actions) =>
      records.filter((r) => r.sessionId === sessionId && (!actions || actions.includes(r.action))).at(-1),
    prune: async () => 0,
  };
}

describe('AuditService', () => {
  it('records with the workspace, describes each action, and keeps history private-sized', async () => {
    const repo = memoryAudit();
    const audit = new AuditService({ audit: repo, logger, retentionDays: 365 });
    audit.teamId = 'T1';
    await audit.record({
      sessionId: 's1',
      action: 'start',
      userId: 'U1',
      detail: { goal: 'ship it' },
      outcome: 'ok',
    });
    await audit.record({
      sessionId: 's1',
      inputId: 'in_1',
      ...answerDetail(approval, { approved: false, freeText: 'not on a Friday' }),
      userId: 'U2',
      outcome: 'ok',
    });
    await audit.record({
      sessionId: 's1',
      action: 'raise_budget',
      userId: 'U1',
      detail: { newBudget: 25 },
      outcome: 'error',
    });
    await audit.record({
      sessionId: 's1',
      action: 'timeout',
      userId: 'bot',
      detail: { onTimeout: 'leave', did: 'left open' },
      outcome: 'ok',
    });
    expect(repo.records[0]?.teamId).toBe('T1');
    expect(repo.records[1]?.action).toBe('reject');
    const history = await audit.history('s1');
    expect(history).toContain('<@U1> started the session: ship it');
    expect(history).toContain('<@U2> answered: Rejected: not on a Friday');
    expect(history).toContain('<@U1> raised the budget: $25.00 _(refused by the service)_');
    expect(history).toContain('The bot timed out: left open (AGENT_ON_TIMEOUT=leave)');
    expect(await audit.history('nope')).toMatch(/No actions are recorded/);
    expect(await audit.latestDecision('s1')).toMatch(/^The bot timed out/);
    expect(describeRecord({ action: 'pause', userId: 'U3', detail: null, outcome: 'ok', at: '' })).toBe(
      '<@U3> paused',
    );
  });

  it('names the agent host that acted for the person (MCP); Slack’s own Stop button is not a host', () => {
    const answered = {
      kind: 'approval',
      answer: { approved: true },
      shown: 'Approved',
      via: 'via MCP, Claude Code',
    };
    expect(describeRecord({ action: 'answer', userId: 'U1', detail: answered, outcome: 'ok', at: '' })).toBe(
      '<@U1> answered: Approved _(via MCP, Claude Code)_',
    );
    expect(
      describeRecord({ action: 'cancel', userId: 'U1', detail: { via: 'stop' }, outcome: 'ok', at: '' }),
    ).toBe('<@U1> cancelled');
  });

  it('an audit that cannot be written is logged, never the action’s failure', async () => {
    const repo = memoryAudit();
    repo.append = async () => {
      throw new Error('disk full');
    };
    const audit = new AuditService({ audit: repo, logger, retentionDays: 365 });
    await expect(
      audit.record({ sessionId: 's1', action: 'pause', userId: 'U1', outcome: 'ok' }),
    ).resolves.toBeUndefined();
  });
});

describe('GET /audit', () => {
  const TOKEN = 'audit-token-for-the-paging-test';
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // The repository's paging in memory; its SQL (`after`, `limit`) is held on both databases in test/store.
    const audit = new AuditService({ audit: memoryAudit(), logger, retentionDays: 365 });
    const [route] = audit.routes(TOKEN);
    if (!route) throw new Error('no /audit route');
    server = createServer((req, res) => route.handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (let i = 0; i < 7; i++) {
      await audit.record({
        sessionId: i % 2 ? 'odd' : 'even',
        action: 'pause',
        userId: `U${i}`,
        outcome: 'ok',
      });
    }
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const lines = async (r: Response) =>
    (await r.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditRecord);

  it('pages: a Link header names the next page until the last, which has none; every record once, in order', async () => {
    const seen: string[] = [];
    let next: string | undefined = '/audit?limit=3';
    const pages: number[] = [];
    while (next) {
      const response = await get(next);
      expect(response.status).toBe(200);
      const page = await lines(response);
      pages.push(page.length);
      seen.push(...page.map((r) => r.userId));
      const link = response.headers.get('link');
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
      if (link) expect(response.headers.get('x-audit-next')).toBe(String(page.at(-1)?.id));
      if (link) expect(next).toMatch(/^\/audit\?limit=3&after=\d+$/);
    }
    expect(pages).toEqual([3, 3, 1]);
    expect(seen).toEqual(['U0', 'U1', 'U2', 'U3', 'U4', 'U5', 'U6']);
  });

  it('keeps the other filters on the next page', async () => {
    const first = await get('/audit?sessionId=odd&limit=2');
    expect((await lines(first)).map((r) => r.userId)).toEqual(['U1', 'U3']);
    const link = first.headers.get('link') ?? '';
    expect(link).toMatch(/sessionId=odd/);
    const second = await get(/^<([^>]+)>/.exec(link)?.[1] ?? '');
    expect((await lines(second)).map((r) => r.userId)).toEqual(['U5']);
    expect(second.headers.get('link')).toBeNull();
  });

  it('names a bad after or limit and its rule (400)', async () => {
    const bad = await get('/audit?limit=0');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'limit must be a whole number from 1 to 10000; got "0"' });
    const after = await get('/audit?after=abc');
    expect(after.status).toBe(400);
    expect(((await after.json()) as { error: string }).error).toMatch(/^after must be a whole number/);
  });
});
