import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The Slack installation a piece of work belongs to: set for each request from Slack, each
 * follower event and each reminder, and read by whatever calls Slack (which token), spends Slack's limits
 * (whose budget) or reads the store (whose sessions). Work outside any workspace (the lease keeper's
 * sweep, start-up) reads across all of them and calls Slack for none.
 */
export interface Workspace {
  teamId?: string;
  enterpriseId?: string;
  /** An org-wide (Enterprise Grid) install: one token for every workspace of the organisation. */
  isEnterpriseInstall: boolean;
  /** The installation's key: the organisation's id for an org-wide install, else the workspace's. */
  key: string;
  /**
   * OAuth mode: the store shows this workspace's sessions only. False with one token (`SLACK_BOT_TOKEN`),
   * where there is one workspace and a session may carry none.
   */
  isolated: boolean;
}

export interface WorkspaceIds {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

const scope = new AsyncLocalStorage<Workspace>();

/** The installation's key: `E…` for an org-wide install, else the team's `T…`; undefined without ids. */
export function workspaceKey(ids: WorkspaceIds): string | undefined {
  return ids.isEnterpriseInstall ? ids.enterpriseId : (ids.teamId ?? ids.enterpriseId);
}

/** A workspace from a request's ids; undefined when Slack sent neither a team nor an organisation. */
export function workspaceOf(ids: WorkspaceIds, isolated: boolean): Workspace | undefined {
  const key = workspaceKey(ids);
  if (key === undefined) return undefined;
  return {
    ...(ids.teamId ? { teamId: ids.teamId } : {}),
    ...(ids.enterpriseId ? { enterpriseId: ids.enterpriseId } : {}),
    isEnterpriseInstall: ids.isEnterpriseInstall === true,
    key,
    isolated,
  };
}

/** The workspace the current work belongs to, if any. */
export function currentWorkspace(): Workspace | undefined {
  return scope.getStore();
}

/** Runs `fn` (and everything it starts) as work of `workspace`; as it is when there is none. */
export function inWorkspace<T>(workspace: Workspace | undefined, fn: () => T): T {
  return workspace ? scope.run(workspace, fn) : fn();
}

/** `fn`, bound to the workspace current now: it runs as that workspace's work whenever it is called. */
export function bindWorkspace<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
  const workspace = scope.getStore();
  return workspace ? (...args: A) => scope.run(workspace, () => fn(...args)) : fn;
}

/** The key the store filters by now: set only under an isolated workspace. */
export function isolatedKey(): string | undefined {
  const workspace = scope.getStore();
  return workspace?.isolated ? workspace.key : undefined;
}

/**
 * The one shape of a key for anything kept per workspace in memory: the workspace (a team id, or an
 * installation's scope from `workspaceScope`) and the id. Slack's ids are per workspace (a Slack Connect
 * channel has one id in both organisations; a Grid user one id in every workspace of the organisation),
 * so a bare id never keys what one workspace saw or decided.
 */
export function scopedKey(workspace: string, id: string): string {
  return `${workspace}:${id}`;
}

/**
 * Which workspace work runs for, as a key part: the installation's key, and the team too when an org-wide
 * (Enterprise Grid) install serves several workspaces under one key, since admins, members and Slack's
 * answers differ between them.
 */
export function workspaceScope(workspace: Workspace): string {
  return workspace.teamId === undefined || workspace.teamId === workspace.key
    ? workspace.key
    : `${workspace.key}/${workspace.teamId}`;
}

/** A cache key for what Slack said about `id` in the current workspace (ids are Slack's, per workspace). */
export function cacheKey(id: string): string {
  const workspace = scope.getStore();
  return workspace ? scopedKey(workspaceScope(workspace), id) : id;
}
