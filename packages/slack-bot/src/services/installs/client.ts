import { webApi } from '@slack/bolt';
import { currentWorkspace, type Workspace } from '../../workspace.js';

/** A Web API call made where no workspace is known: in OAuth mode it has no token to go with. */
export class NoWorkspaceError extends Error {
  override name = 'NoWorkspaceError';
  constructor(method: string) {
    super(`${method}: no workspace for this call (OAuth mode needs one to choose the token)`);
  }
}

/**
 * The Web API client of a bot installed in many workspaces: each call goes with the token of
 * the workspace it is made for — the one given at construction (`forWorkspace`), else the current work's
 * (see workspace.ts). A call with a token of its own keeps it; a call for no workspace is refused.
 */
export class WorkspaceClient extends webApi.WebClient {
  readonly #clients = new Map<string, WorkspaceClient>();

  constructor(
    private readonly tokenFor: (workspace: Workspace) => Promise<string>,
    private readonly clientOptions: webApi.WebClientOptions = {},
    private readonly fixed?: Workspace,
  ) {
    super(undefined, clientOptions);
  }

  /** A client for one workspace, whatever the current work's is (a part that serves only that one). */
  forWorkspace(workspace: Workspace): WorkspaceClient {
    let client = this.#clients.get(workspace.key);
    if (!client) {
      client = new WorkspaceClient(this.tokenFor, this.clientOptions, workspace);
      this.#clients.set(workspace.key, client);
    }
    return client;
  }

  override async apiCall(
    method: string,
    options: Record<string, unknown> = {},
  ): Promise<webApi.WebAPICallResult> {
    if (typeof options.token === 'string' && options.token !== '') return super.apiCall(method, options);
    const workspace = this.fixed ?? currentWorkspace();
    if (!workspace) throw new NoWorkspaceError(method);
    return super.apiCall(method, { ...options, token: await this.tokenFor(workspace) });
  }
}
