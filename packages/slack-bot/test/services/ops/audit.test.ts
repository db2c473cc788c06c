import { describe, expect, it } from 'vitest';
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
    list: async ({ sessionId }) => records.filter((r) => !sessionId || r.sessionId === sessionId),
    latest: async (sessionId, actions) =>
      records.filter((r) => r.sessionId === sessionId && (!actions || actions.includes(r.action))).at(-1),
    prune: async () => 0,
  };
}

const approval = { inputId: 'in_1', kind: 'approval' as const, prompt: 'Deploy?', raw: {} };

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
