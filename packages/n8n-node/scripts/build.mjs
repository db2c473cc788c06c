// Builds the community package: CommonJS in dist/, as n8n loads nodes. Core's pure API without zod
// (@agent-sessions/core/pure-without-zod: the session endpoints over an injected request function, the
// readers, the cursor, the wait loop, human-input parsing and answers) is bundled in, so the package has no
// runtime dependency but n8n-workflow, which n8n provides. Not minified: it is small enough as it is, and
// n8n's reviewers read what they verify. The build fails if zod comes back (n8n's scanner refuses its
// `globalThis`) or a node's bundle outgrows its budget (n8n loads every community node at start).
import { cpSync, rmSync, statSync } from 'node:fs';
import { build } from 'esbuild';

const BUNDLE_BUDGET_BYTES = 150 * 1024;
const NODE_BUNDLES = ['dist/nodes/AgentSessions/AgentSessions.node.js', 'dist/nodes/AgentSessionsTrigger/AgentSessionsTrigger.node.js'];

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: [
    'nodes/AgentSessions/AgentSessions.node.ts',
    'nodes/AgentSessionsTrigger/AgentSessionsTrigger.node.ts',
    'credentials/AgentSessionsApi.credentials.ts',
  ],
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
  metafile: true,
});
// The trigger's icon is the node's (`file:../AgentSessions/…`): one copy of each svg.
for (const file of [
  'AgentSessions/agentSessions.svg',
  'AgentSessions/agentSessions.dark.svg',
  'AgentSessions/AgentSessions.node.json',
  'AgentSessionsTrigger/AgentSessionsTrigger.node.json',
]) {
  cpSync(`${root}nodes/${file}`, `${root}dist/nodes/${file}`);
}

const zod = Object.keys(metafile.inputs).filter((input) => /(^|\/)node_modules\/zod\//.test(input));
if (zod.length > 0) {
  throw new Error(`zod is in the bundle (${zod.length} files, e.g. ${zod[0]}): import core's pure-without-zod`);
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
for (const bundle of NODE_BUNDLES) {
  const bytes = statSync(`${root}${bundle}`).size;
  process.stdout.write(`${bundle}: ${kb(bytes)} (budget ${kb(BUNDLE_BUDGET_BYTES)})\n`);
  if (bytes > BUNDLE_BUDGET_BYTES) throw new Error(`${bundle} is ${kb(bytes)}, over its ${kb(BUNDLE_BUDGET_BYTES)} budget`);
}
