// Builds the community package: CommonJS in dist/, as n8n loads nodes. Core's pure API
// (@agent-sessions/core/pure: the session endpoints over an injected request function, the readers, the
// cursor, the wait loop, human-input parsing and answers, and zod under them) is bundled in, so the package
// has no runtime dependency but n8n-workflow, which n8n provides.
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['nodes/AgentSessions/AgentSessions.node.ts', 'credentials/AgentSessionsApi.credentials.ts'],
  outdir: 'dist',
  outbase: '.',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['n8n-workflow'],
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['agentSessions.svg', 'agentSessions.dark.svg', 'AgentSessions.node.json']) {
  cpSync(`${root}nodes/AgentSessions/${file}`, `${root}dist/nodes/AgentSessions/${file}`);
}
