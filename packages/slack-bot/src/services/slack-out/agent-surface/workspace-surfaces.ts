import type { Logger } from '../../../logger.js';
import { currentWorkspace } from '../../../workspace.js';
import {
  DEFAULT_SURFACE_RETRY_MS,
  type SlackSurface,
  type SurfaceChoice,
  type SurfaceReport,
  type SurfaceSetting,
  SurfaceSwitch,
} from './surface.js';

/** /healthz: the surface, and under OAuth how many workspaces Slack turned classic (never which). */
export interface SurfacesReport extends SurfaceReport {
  classicWorkspaces?: number;
}

type LineLogger = Pick<Logger, 'info' | 'warn' | 'error'>;
type SurfaceLogger = LineLogger & { child(bindings: { workspace: string }): LineLogger };

/**
 * The surface choice per workspace. Whether Slack's agent features are there is a property of a
 * workspace (its plan, its install of the app): one workspace answering `feature_disabled` says nothing
 * of another, so each installation (OAuth, `isolated` work) has its own `SurfaceSwitch`, picked by the
 * workspace the current work runs as. With one token there is one workspace, and one switch for all its
 * work (sessions recorded without a workspace included); so is work that names none.
 */
export class WorkspaceSurfaces implements SurfaceChoice {
  readonly #switches = new Map<string, SurfaceSwitch>();
  readonly #again: Array<(workspace: string | undefined) => void> = [];
  readonly #shared: SurfaceSwitch;

  constructor(
    readonly setting: SurfaceSetting,
    private readonly logger: SurfaceLogger,
    private readonly now: () => Date = () => new Date(),
    private readonly retryMs: number = DEFAULT_SURFACE_RETRY_MS,
  ) {
    this.#shared = this.#make(undefined, logger);
  }

  current(): SlackSurface {
    return this.#switch().current();
  }

  fallBack(method: string, error: string): void {
    this.#switch().fallBack(method, error);
  }

  /**
   * Called each time `auto` tries agent sessions again in a workspace (its key; undefined for the shared
   * switch), as that workspace's work: its sessions followed meanwhile get their status.
   */
  onAgain(listener: (workspace: string | undefined) => void): void {
    this.#again.push(listener);
  }

  announce(): void {
    this.#shared.announce();
  }

  report(): SurfacesReport {
    const base = this.#shared.report();
    if (this.#switches.size === 0) return base;
    let classic = 0;
    for (const s of this.#switches.values()) if (s.current() === 'classic') classic += 1;
    return { ...base, classicWorkspaces: classic };
  }

  #switch(): SurfaceSwitch {
    const workspace = currentWorkspace();
    if (!workspace?.isolated) return this.#shared;
    let made = this.#switches.get(workspace.key);
    if (!made) {
      made = this.#make(workspace.key, this.logger.child({ workspace: workspace.key }));
      this.#switches.set(workspace.key, made);
    }
    return made;
  }

  #make(key: string | undefined, logger: LineLogger): SurfaceSwitch {
    const made = new SurfaceSwitch(this.setting, logger, this.now, this.retryMs);
    made.onAgain(() => {
      for (const listener of this.#again) listener(key);
    });
    return made;
  }
}
