import { describe, expect, it } from 'vitest';
import { parseTeamList } from '../../../src/config/team-list.js';
import { createLogger } from '../../../src/logger.js';
import { Admission, listsWorkspace } from '../../../src/services/installs/admission.js';

/** A logger whose lines are kept, to count what was said. */
function keptLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { lines, logger: createLogger({ secrets: [], destination }) };
}

const list = (raw: string) => {
  const parsed = parseTeamList('SLACK_ALLOWED_TEAMS', raw);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.list;
};

describe('team lists (SLACK_ALLOWED_TEAMS, AGENT_API_KEY_TEAMS)', () => {
  it('reads team and organisation ids, or * alone', () => {
    expect(list(' T0NORTH , E0GLOBEX ')).toEqual({ any: false, ids: new Set(['T0NORTH', 'E0GLOBEX']) });
    expect(list('*')).toEqual({ any: true });
    // Written as nothing, it admits nobody: "any" is never what an empty setting means.
    expect(list('')).toEqual({ any: false, ids: new Set() });
  });

  it('names the variable, the entry and the rule for anything else', () => {
    expect(parseTeamList('SLACK_ALLOWED_TEAMS', 'T0NORTH,U0ALICE,northwind')).toEqual({
      ok: false,
      problems: [
        'SLACK_ALLOWED_TEAMS takes team ids (T…) and organisation ids (E…), comma-separated, or * for every workspace; got "U0ALICE"',
        'SLACK_ALLOWED_TEAMS takes team ids (T…) and organisation ids (E…), comma-separated, or * for every workspace; got "northwind"',
      ],
    });
    expect(parseTeamList('AGENT_API_KEY_TEAMS', '*,T0NORTH')).toEqual({
      ok: false,
      problems: ['AGENT_API_KEY_TEAMS: * admits every workspace and stands alone; got "*,T0NORTH"'],
    });
  });

  it('lists a workspace by its team id or its organisation id; an org-wide install only by the latter', () => {
    const teams = list('T0NORTH,E0GLOBEX');
    expect(listsWorkspace(teams, { teamId: 'T0NORTH' })).toBe(true);
    expect(listsWorkspace(teams, { teamId: 'T0GSALES', enterpriseId: 'E0GLOBEX' })).toBe(true);
    expect(listsWorkspace(teams, { enterpriseId: 'E0GLOBEX', isEnterpriseInstall: true })).toBe(true);
    expect(listsWorkspace(teams, { teamId: 'T0STRANGER' })).toBe(false);
    expect(listsWorkspace(list('T0NORTH'), { enterpriseId: 'E0NORTHORG', isEnterpriseInstall: true })).toBe(
      false,
    );
    expect(listsWorkspace(teams, undefined)).toBe(false);
    expect(listsWorkspace(list('*'), { teamId: 'T0ANY' })).toBe(true);
  });
});

describe('Admission', () => {
  it('says once per workspace that it turned one away, however often it asks', () => {
    const { lines, logger } = keptLogger();
    const admission = new Admission(list('T0NORTH'), logger);
    for (let i = 0; i < 5; i++) {
      expect(admission.check({ teamId: 'T0DROPPED' }, 'requests')).toBe(false);
      expect(admission.check({ teamId: 'T0NORTH' }, 'requests')).toBe(true);
    }
    expect(admission.check({ teamId: 'T0OTHER' }, 'an install')).toBe(false);
    const refusals = lines.filter((l) => String(l.msg).includes('SLACK_ALLOWED_TEAMS'));
    expect(refusals.map((l) => l.teamId)).toEqual(['T0DROPPED', 'T0OTHER']);
  });
});
