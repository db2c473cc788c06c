import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { ESLint, type Linter } from 'eslint';
import type { INodeTypeDescription } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { AgentSessionsApi } from '../credentials/AgentSessionsApi.credentials';
import { AgentSessions } from '../nodes/AgentSessions/AgentSessions.node';
import { AgentSessionsTrigger } from '../nodes/AgentSessionsTrigger/AgentSessionsTrigger.node';

/** The plugin ships no types: what this test reads of it. */
type RuleSets = Record<'community' | 'credentials' | 'nodes', { rules: Record<string, unknown> }>;
const n8nNodesBase = createRequire(import.meta.url)('eslint-plugin-n8n-nodes-base') as { configs: RuleSets };

// n8n's verification guidelines and its n8n 3.0 changes, each rule a line of docs/verification.md: the
// ones a file can show are checked here.
const packageDir = new URL('..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(packageDir, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as Record<string, unknown> & {
  n8n: { nodes: string[]; credentials: string[] };
  scripts: Record<string, string>;
  repository?: { url?: string; directory?: string };
};

function filesUnder(dir: string, test: (name: string) => boolean): string[] {
  return readdirSync(join(packageDir, dir), { recursive: true, encoding: 'utf8' })
    .filter(test)
    .map((f) => join(dir, f));
}

/** The eslint-plugin-n8n-nodes-base rules left off, each contradicted by a newer rule of the same lint. */
const OFF_BY_CONTRADICTION = [
  'n8n-nodes-base/cred-class-field-documentation-url-miscased',
  'n8n-nodes-base/node-class-description-inputs-wrong-regular-node',
  'n8n-nodes-base/node-class-description-outputs-wrong',
];

const severity = (entry: Linter.RuleEntry | undefined) => {
  const level = Array.isArray(entry) ? entry[0] : entry;
  return level === 2 || level === 'error' ? 'error' : level === 1 || level === 'warn' ? 'warn' : 'off';
};

describe('n8n verification guidelines', () => {
  it('MIT licence, in package.json and LICENSE', () => {
    expect(manifest.license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n/);
  });

  it('no runtime dependencies: only n8n-workflow as a peer, and the sources import nothing else', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
    const sources = [...filesUnder('nodes', (f) => f.endsWith('.ts')), ...filesUnder('credentials', (f) => f.endsWith('.ts'))];
    const imported = new Set(sources.flatMap((f) => [...read(f).matchAll(/from '([^.][^']*)'/g)].map((m) => m[1])));
    // Core's pure modules are bundled into dist at build time (scripts/build.mjs), not a dependency.
    expect([...imported].sort()).toEqual(['@agent-sessions/core/pure-without-zod', 'n8n-workflow']);
  });

  it('the npm repository URL is the public GitHub repository the package is published from', () => {
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/agent-sessions/agent-sessions.git',
      directory: 'packages/n8n-node',
    });
    expect(String(manifest.homepage)).toMatch(/^https:\/\/github\.com\/agent-sessions\/agent-sessions\b/);
  });

  it('the lint is the full rule set: every community-nodes and n8n-nodes-base rule on but three, warnings failing', async () => {
    expect(manifest.scripts.lint).toMatch(/^eslint --max-warnings 0 \. /);
    const eslint = new ESLint({ cwd: packageDir });
    /** The rules of a set that the config in force for a file turns off. */
    const offAmong = (rules: Record<string, Linter.RuleEntry>, set: Record<string, unknown>) =>
      Object.keys(set).filter((rule) => severity(rules[rule]) === 'off');
    const community = n8nCommunityNodesPlugin.configs.recommended.rules as Record<string, Linter.RuleEntry>;
    const node = (await eslint.calculateConfigForFile('nodes/AgentSessions/AgentSessions.node.ts')).rules;
    const trigger = (await eslint.calculateConfigForFile('nodes/AgentSessionsTrigger/AgentSessionsTrigger.node.ts')).rules;
    const credential = (await eslint.calculateConfigForFile('credentials/AgentSessionsApi.credentials.ts')).rules;
    const pkg = (await eslint.calculateConfigForFile('package.json')).rules;
    for (const rules of [node, trigger]) {
      expect(offAmong(rules, community)).toEqual([]);
      expect(offAmong(rules, n8nNodesBase.configs.nodes.rules)).toEqual(OFF_BY_CONTRADICTION.slice(1));
    }
    expect(offAmong(credential, community)).toEqual([]);
    expect(offAmong(credential, n8nNodesBase.configs.credentials.rules)).toEqual(OFF_BY_CONTRADICTION.slice(0, 1));
    expect(offAmong(pkg, n8nNodesBase.configs.community.rules)).toEqual([]);
    // The rules the issue names, on as errors.
    for (const rule of ['node-usable-as-tool', 'require-node-api-error', 'no-runtime-dependencies', 'icon-validation']) {
      expect(severity(node[`@n8n/community-nodes/${rule}`]), rule).toBe('error');
    }
  });

  it('usable as a tool: the action node is, the trigger (which an AI agent cannot call) is not', () => {
    expect(new AgentSessions().description.usableAsTool).toBe(true);
    expect(new AgentSessionsTrigger().description.usableAsTool).toBeUndefined();
  });

  it('errors leave the nodes as NodeApiError or NodeOperationError', () => {
    const throws = filesUnder('nodes', (f) => f.endsWith('.ts')).flatMap((f) =>
      read(f)
        .split('\n')
        .filter((line) => /\bthrow\b/.test(line) && !/^\s*(\/\/|\*)/.test(line))
        .map((line) => `${f}: ${line.trim()}`),
    );
    const typed = /throw (new (NodeApiError|NodeOperationError)\(|nodeError\()/;
    // sleep.ts throws n8n-workflow's own cancel error, as n8n's sleepWithAbort does; the router turns it
    // (as any other error) into a NodeOperationError (transport nodeError).
    const others = throws.filter((t) => !typed.test(t));
    expect(others).toEqual([
      "nodes/AgentSessions/transport/sleep.ts: if (signal.aborted) throw new ManualExecutionCancelledError('');",
    ]);
    expect(read('nodes/AgentSessions/actions/router.ts')).toContain('throw nodeError(this, error, i);');
  });

  it('icons: light and dark SVGs for both nodes and the credential, files that exist', () => {
    const descriptions: Array<[string, INodeTypeDescription['icon']]> = [
      ['nodes/AgentSessions', new AgentSessions().description.icon],
      ['nodes/AgentSessionsTrigger', new AgentSessionsTrigger().description.icon],
      ['credentials', new AgentSessionsApi().icon],
    ];
    for (const [dir, icon] of descriptions) {
      expect(icon, dir).toEqual({ light: expect.stringMatching(/^file:.+\.svg$/), dark: expect.stringMatching(/^file:.+\.dark\.svg$/) });
      for (const path of Object.values(icon as Record<string, string>)) {
        expect(read(join(dir, path.replace(/^file:/, '')))).toMatch(/^<svg[\s>]/);
      }
    }
  });

  it('every node and credential is registered in package.json, each node with its codex', () => {
    const nodes = filesUnder('nodes', (f) => f.endsWith('.node.ts')).map((f) => `dist/${f.replace(/\.ts$/, '.js')}`);
    const credentials = filesUnder('credentials', (f) => f.endsWith('.credentials.ts')).map((f) => `dist/${f.replace(/\.ts$/, '.js')}`);
    expect([...manifest.n8n.nodes].sort()).toEqual(nodes.sort());
    expect(manifest.n8n.credentials).toEqual(credentials);
    for (const node of nodes) {
      const codex = JSON.parse(read(node.replace(/^dist\//, '').replace(/\.js$/, '.json'))) as { node: string };
      expect(codex.node).toMatch(/^n8n-nodes-agent-sessions\.agentSessions(Trigger)?$/);
    }
  });
});

describe('n8n 3.0', () => {
  it('no AI Agent of version 1 in the tests or the documented workflows', () => {
    const fromDocs = filesUnder('docs', (f) => f.endsWith('.md')).flatMap((f) =>
      [...read(f).matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] ?? 'null') as unknown),
    );
    const fromTests = filesUnder('test/real-n8n', (f) => f.endsWith('.json')).map((f) => JSON.parse(read(f)) as unknown);
    const workflows = [...fromDocs, ...fromTests].filter(
      (w): w is { nodes: Array<{ type: string; typeVersion: number; name: string }> } =>
        typeof w === 'object' && w !== null && Array.isArray((w as { nodes?: unknown }).nodes),
    );
    expect(workflows.length).toBeGreaterThanOrEqual(6);
    const agents = workflows.flatMap((w) => w.nodes.filter((n) => n.type === '@n8n/n8n-nodes-langchain.agent'));
    expect(agents.length).toBeGreaterThan(0);
    expect(agents.filter((n) => n.typeVersion < 2).map((n) => `${n.name} v${n.typeVersion}`)).toEqual([]);
  });
});
