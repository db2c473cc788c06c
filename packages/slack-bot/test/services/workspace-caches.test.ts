import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every long-lived Map or Set of services/ (a class field: it outlives the request that filled it) keys
// what one workspace saw by that workspace. Slack's ids are per workspace and not unique across them: a
// Slack Connect channel has one id in two organisations, a Grid user one id in every workspace of theirs,
// so a cache keyed by a bare id hands one workspace what Slack told, or what was decided for, another.
//
// How it is checked: a per-workspace key has one shape, made by `scopedKey(workspace, id)` or, for the
// workspace the work runs as, `cacheKey(id)` (src/workspace.ts). This test reads the sources, finds each
// such field, and passes it when every get/set/has/delete/add on it takes a key made by one of them
// (directly, or a local `key` assigned from one). A field keyed otherwise must be in EXCEPTIONS with why
// it can't cross: keyed by the service's session id (unique across workspaces: the store's primary key,
// and a session is one workspace's), by the workspace itself, or holding nothing per person or channel.
// A reading of the source, not of types: cheap, and it fails on the next cache written with a bare id.

const SERVICES = fileURLToPath(new URL('../../src/services/', import.meta.url));

const SESSION = "keyed by the service's session id, unique across workspaces; a session is one workspace's";
const WORKSPACE = "keyed by the workspace's own key: one entry per workspace";
const EXCEPTIONS: Record<string, string> = {
  'mcp/request-budget.ts#buckets': "keyed by the endpoint's person key, scopedKey(workspace, user)",
  'mcp/wait-slots.ts#byWorkspace': WORKSPACE,
  'mcp/tokens.ts#noted':
    "keyed by a token's id, a random UUID of one person in one workspace: when this replica last noted its use",
  'shared-calls.ts#running': "its callers' keys, each checked here where it holds a SharedCalls",
  'mcp/slack-identity.ts#seen':
    "Slack's request signatures, HMACs over a body that names its team: one workspace's can't be another's",
  'mcp/sign-in-guard.ts#passed':
    "tokens' SHA-256 digests: a token is one workspace's and names it (nothing per Slack id)",
  'code-channels/code-channels.ts#waiting': SESSION,
  'code-channels/code-channels.ts#drawing': SESSION,
  'code-channels/code-channels.ts#ensuring': SESSION,
  'code-channels/code-channels.ts#refused': WORKSPACE,
  'mcp/open-calls.ts#byKey':
    "keyOf(caller, id): scopedKey(workspace, person), the token's id and the request id",
  'mcp/waiting.ts#changedAt': SESSION,
  'mcp/waiting.ts#byKey': `${SESSION} (FreshReads: one read of a session shared by its waits)`,
  'people/home-refresh.ts#due': "the #viewers' own keys, cacheKey(userId): workspace-scoped",
  'slack-out/thread/thread-batches.ts#tails': SESSION,
  'slack-out/thread/thread-batches.ts#batches': SESSION,
  'slack-out/thread/thread-batches.ts#queued': SESSION,
  'slack-out/thread/post-owner.ts#claimed': SESSION,
  'slack-out/thread/post-owner.ts#withdrawn': SESSION,
  'slack-out/thread/post-owner.ts#delivering': SESSION,
  'slack-out/agent-surface/stream-place.ts#chains': SESSION,
  'slack-out/thread/thread-lookup.ts#threadReads': `${SESSION} (sessionId|channel|card)`,
  'slack-out/thread/thread-lookup.ts#recovered': SESSION,
  'slack-out/agent-surface/agent-sessions.ts#entries': SESSION,
  'slack-out/agent-surface/agent-sessions.ts#followed': SESSION,
  'slack-out/agent-surface/stream-poster.ts#sessions': SESSION,
  'slack-out/thread/card-updater.ts#pending': SESSION,
  'slack-out/thread/card-updater.ts#lastSent': SESSION,
  'slack-out/thread/card-updater.ts#shown': SESSION,
  'following/message-marks.ts#marks': `${SESSION} (sessionId and message key)`,
  'following/session-publisher.ts#snapshots': SESSION,
  'following/session-publisher.ts#steps': SESSION,
  'following/session-publisher.ts#toolCalls': SESSION,
  'following/lease-keeper.ts#followed': SESSION,
  'installs/scope.ts#known': `${SESSION} (it is what maps a session to its workspace)`,
  'people/stopping.ts#clicking': `${SESSION} (session and user: the click is on that session's thread)`,
  'people/stopping.ts#stopped': SESSION,
  'slack-out/agent-surface/workspace-surfaces.ts#switches': WORKSPACE,
  'installs/client.ts#clients': WORKSPACE,
  'people/thread-context.ts#sincePrune': WORKSPACE,
  'installs/per-workspace.ts#queues': WORKSPACE,
  'installs/per-workspace.ts#cards': WORKSPACE,
  'installs/tokens.ts#inFlight': `${WORKSPACE} (the installation whose token is refreshed)`,
  'slack-out/outbound/outbound.ts#lanes':
    "channels of one workspace's queue: installs/per-workspace.ts gives each workspace its own OutboundQueue",
  'slack-out/outbound/outbound.ts#workspace':
    "limits a workspace shares (a method's row in slack-limits.ts): one queue is one workspace's, as #lanes",
  'slack-out/outbound/outbound.ts#outcomes': 'call tags (a session and a post key): per session, as SESSION',
  'slack-out/agent-surface/surface.ts#said':
    "Slack's method and error names, said once: nothing per person or channel",
  'keys/service-keys.ts#cache': "key slots (`team:T…`, `person:T…:U…`): the slot's ref names its team",
  'keys/keyed-calls.ts#readers': "key slots, as service-keys.ts's cache: the ref names its team",
  'keys/keyed-calls.ts#teams': 'key slots to their team: the ref names its team',
  'keys/keyed-calls.ts.requests': "requests counted by team id: the workspace's own key",
  'keys/cipher.ts#keys': 'encryption keys by their id: no Slack id, nothing per workspace',
  'installs/admission.ts#told': 'refusals already logged: keyed by the refused workspace itself and the kind',
  'ops/readiness.ts#waits':
    "what the start waits for (Slack's first answer, the service's): nothing per workspace",
};

interface Field {
  /** `dir/file.ts#name` (`.name` for a public field). */
  id: string;
  file: string;
  name: string;
  text: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Class fields set to a new Map, Set, LRUCache or SharedCalls, or to a boundedCache or ttlCache, or typed LRUCache
 * (made in the constructor): a line of a class body (two spaces in), never a local.
 */
function fieldsOf(path: string): Field[] {
  const text = readFileSync(path, 'utf8');
  const file = relative(SERVICES, path);
  const found: Field[] = [];
  const field =
    /^ {2}(?:readonly\s+)?(#?)(\w+)(?:(?:\s*:[^=\n]+)?\s*=\s*new (?:Map|Set|WeakMap|WeakSet|LRUCache|SharedCalls)\b|\s*=\s*(?:boundedCache|ttlCache)\b|\s*:\s*LRUCache<)/gm;
  for (const m of text.matchAll(field)) {
    const name = `${m[1]}${m[2]}`;
    found.push({ id: `${file}${m[1] ? '' : '.'}${name}`, file, name, text });
  }
  return found;
}

/** The first argument of every access to the field. */
function keysOf({ name, text }: Field): string[] {
  const escaped = name.replace('#', '\\#');
  const access = new RegExp(
    `this\\.${escaped}\\.(?:get|set|has|delete|add|run)\\(\\s*([^,)]+(?:\\([^)]*\\))?)`,
    'g',
  );
  return [...text.matchAll(access)].map((m) => (m[1] as string).trim());
}

/** Whether a key is made by scopedKey/cacheKey, or is a local assigned from one of them. */
function isWorkspaceKey(key: string, text: string): boolean {
  if (/^(scopedKey|cacheKey)\(/.test(key)) return true;
  if (!/^\w+$/.test(key)) return false;
  return new RegExp(`(?:const|let)\\s+${key}\\s*=\\s*(?:scopedKey|cacheKey)\\(`).test(text);
}

const fields = sources(SERVICES).flatMap(fieldsOf);

describe('the in-memory caches of services/', () => {
  it('finds them (the reading still matches how the sources are written)', () => {
    expect(fields.length).toBeGreaterThan(20);
    expect(fields.map((f) => f.id)).toEqual(
      expect.arrayContaining(['keys/key-admins.ts#cache', 'people/own-organisation.ts#cache']),
    );
  });

  it('each keys by workspace (scopedKey / cacheKey) or is a named exception', () => {
    const bare = fields
      .filter((f) => !(f.id in EXCEPTIONS))
      .flatMap((f) => {
        const keys = keysOf(f);
        if (keys.length === 0) return [`${f.id}: no access found to check`];
        // Evicting the oldest entry (`this.#cache.keys().next()`) reuses a key the field already holds.
        const own = `this.${f.name}.keys(`;
        return keys
          .filter((k) => !k.startsWith(own) && !isWorkspaceKey(k, f.text))
          .map((k) => `${f.id}: keyed by ${k}`);
      });
    expect(bare).toEqual([]);
  });

  it('every exception is a field that still exists', () => {
    const ids = new Set(fields.map((f) => f.id));
    expect(Object.keys(EXCEPTIONS).filter((id) => !ids.has(id))).toEqual([]);
  });
});
