/**
 * The workspaces of one sandbox: the default one first, then any others (a distributed app is installed
 * in several). Each has its own people, channels, trigger ids, response URLs and rate limits; a token
 * reaches only the workspace it was issued for.
 */

import type { Interactions } from '../interactions.js';
import type { RateLimiter } from '../limits/rate-limits.js';
import type { Workspace } from '../workspace.js';

export interface Tenant {
  workspace: Workspace;
  interactions: Interactions;
  /** Slack's limits apply per workspace; undefined when they are off. */
  rateLimiter: RateLimiter | undefined;
}

export class Tenants {
  readonly all: Tenant[];

  constructor(primary: Tenant, others: Tenant[] = []) {
    const ids = new Set<string>();
    for (const t of [primary, ...others]) {
      const id = t.workspace.seed.teamId;
      if (ids.has(id)) throw new Error(`workspaces: team id ${id} is used twice`);
      ids.add(id);
    }
    this.all = [primary, ...others];
  }

  get primary(): Tenant {
    return this.all[0] as Tenant;
  }

  get(teamId: string | undefined): Tenant | undefined {
    return teamId === undefined ? undefined : this.all.find((t) => t.workspace.seed.teamId === teamId);
  }

  /** The workspace whose response URL this is (each workspace issues its own). */
  responding(id: string): Interactions | undefined {
    return this.all.find((t) => t.interactions.knowsResponseUrl(id))?.interactions;
  }

  /** What the page lists: each workspace's id, domain and name. */
  describe(): Array<{
    id: string;
    domain: string;
    name: string;
    enterprise: { id: string; name: string } | null;
  }> {
    return this.all.map(({ workspace: { seed } }) => ({
      id: seed.teamId,
      domain: seed.teamDomain,
      name: seed.teamName ?? seed.teamDomain,
      enterprise: seed.enterprise ?? null,
    }));
  }
}
