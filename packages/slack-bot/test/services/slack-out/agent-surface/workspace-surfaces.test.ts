import { describe, expect, it } from 'vitest';
import { WorkspaceSurfaces } from '../../../../src/services/slack-out/agent-surface/workspace-surfaces.js';
import { inWorkspace, workspaceOf } from '../../../../src/workspace.js';

function logs() {
  const lines: Array<[string, string]> = [];
  const log = (level: string) => (_: unknown, msg?: string) => void lines.push([level, msg ?? '']);
  const logger = { info: log('info'), warn: log('warn'), error: log('error') };
  return { lines, logger: { ...logger, child: () => logger } };
}

const A = workspaceOf({ teamId: 'T0A' }, true);
const B = workspaceOf({ teamId: 'T0B' }, true);

describe('the surface choice per workspace', () => {
  it('one workspace answering feature_disabled turns only itself classic', () => {
    const surfaces = new WorkspaceSurfaces('auto', logs().logger);
    inWorkspace(A, () => surfaces.fallBack('agents.sessions.setStatus', 'feature_disabled'));
    expect(inWorkspace(A, () => surfaces.current())).toBe('classic');
    expect(inWorkspace(B, () => surfaces.current())).toBe('agent');
    expect(surfaces.current()).toBe('agent');
    // /healthz counts the workspaces on classic, and names none.
    expect(surfaces.report()).toMatchObject({ setting: 'auto', current: 'agent', classicWorkspaces: 1 });
    expect(JSON.stringify(surfaces.report())).not.toContain('T0A');
  });

  it('with one token, one workspace: a refusal in it is the whole bot’s, as work naming none sees', () => {
    const surfaces = new WorkspaceSurfaces('auto', logs().logger);
    const only = workspaceOf({ teamId: 'T0ONLY' }, false);
    inWorkspace(only, () => surfaces.fallBack('agents.sessions.setStatus', 'feature_disabled'));
    expect(surfaces.current()).toBe('classic');
    expect(surfaces.report()).toMatchObject({ current: 'classic', refused: { error: 'feature_disabled' } });
    expect(surfaces.report()).not.toHaveProperty('classicWorkspaces');
  });

  it('tries agent again per workspace, and says which to whoever resyncs its sessions', async () => {
    let now = new Date('2026-11-25T16:00:00Z');
    const surfaces = new WorkspaceSurfaces('auto', logs().logger, () => now, 60_000);
    const again: Array<string | undefined> = [];
    surfaces.onAgain((workspace) => again.push(workspace));
    inWorkspace(A, () => surfaces.fallBack('agents.sessions.setStatus', 'feature_disabled'));
    now = new Date('2026-11-25T16:01:00Z');
    expect(inWorkspace(B, () => surfaces.current())).toBe('agent');
    expect(again).toEqual([]);
    expect(inWorkspace(A, () => surfaces.current())).toBe('agent');
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(again).toEqual(['T0A']);
  });
});
