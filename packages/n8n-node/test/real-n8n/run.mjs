// The node inside a real n8n (2.8.4, the newest that runs on Node 20): pack the package, install the
// tarball where n8n keeps community packages, import credentials and the README's example workflows, and
// run each with `n8n execute` against a local emulator. n8n itself is installed once into a cache folder
// outside the workspace (minutes the first time) and reused.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const N8N_VERSION = '2.8.4';
const packageDir = new URL('../..', import.meta.url).pathname;
const repoDir = new URL('../../../..', import.meta.url).pathname;
const workflowsDir = new URL('./workflows/', import.meta.url).pathname;
const cacheDir = process.env.N8N_TEST_CACHE ?? join(homedir(), '.cache', 'agent-sessions-n8n', `n8n-${N8N_VERSION}`);
const API_KEY = 'n8n_real_key_5c2f9e81';
const failures = [];
const log = (line) => process.stdout.write(`${line}\n`);
const check = (ok, what) => {
  log(`${ok ? '  ✓' : '  ✗'} ${what}`);
  if (!ok) failures.push(what);
};

function ensureN8n() {
  const bin = join(cacheDir, 'node_modules', '.bin', 'n8n');
  if (existsSync(bin)) return bin;
  log(`Installing n8n ${N8N_VERSION} into ${cacheDir} (once; a few minutes)…`);
  mkdirSync(cacheDir, { recursive: true });
  // xlsx's default tarball comes from a CDN this network can't reach; the registry's 0.18.5 works.
  writeFileSync(
    join(cacheDir, 'package.json'),
    JSON.stringify({ private: true, dependencies: { n8n: N8N_VERSION }, overrides: { xlsx: '0.18.5' } }, null, 2),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: cacheDir, stdio: 'inherit' });
  return bin;
}

function pack(work) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: packageDir, encoding: 'utf8' });
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  const files = info.files.map((f) => f.path).sort();
  const allowed = (p) => p.startsWith('dist/') || ['README.md', 'LICENSE', 'package.json'].includes(p);
  check(files.every(allowed) && files.includes('README.md') && files.includes('LICENSE'), `the tarball holds only dist, README, LICENSE and package.json (${files.length} files)`);
  return { tarball: join(work, info.filename), name: info.name };
}

function startEmulator() {
  const child = spawn(process.execPath, [join(repoDir, 'packages/emulator/dist/cli.js'), '--port', '0'], {
    env: { ...process.env, EMULATOR_API_KEYS: API_KEY, EMULATOR_SPEED: '20' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, stop: () => child.kill() });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
}

/** `n8n execute --rawOutput` prints log lines first: the result is the JSON from the first `{`. */
function execute(n8n, env, id) {
  const result = spawnSync(n8n, ['execute', `--id=${id}`, '--rawOutput'], { env, encoding: 'utf8', timeout: 180_000 });
  const text = result.stdout ?? '';
  const start = text.indexOf('{');
  let parsed;
  try {
    parsed = start >= 0 ? JSON.parse(text.slice(start)) : undefined;
  } catch {
    parsed = undefined;
  }
  return { code: result.status, parsed, stdout: text, stderr: result.stderr ?? '' };
}

const items = (run, node) => run?.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.map((i) => i.json) ?? [];

const n8n = ensureN8n();
const work = mkdtempSync(join(tmpdir(), 'n8n-real-'));
const emulator = await startEmulator();
try {
  const { tarball, name } = pack(work);
  // Where n8n keeps community packages: <user folder>/.n8n/nodes/node_modules/<name>.
  const nodesDir = join(work, '.n8n', 'nodes');
  const target = join(nodesDir, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', target, '--strip-components=1']);
  writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [name]: '0.1.0' } }));
  // Its peer dependency, as npm would have linked it: n8n's own n8n-workflow.
  symlinkSync(join(cacheDir, 'node_modules', 'n8n-workflow'), join(nodesDir, 'node_modules', 'n8n-workflow'), 'dir');

  const env = {
    ...process.env,
    N8N_USER_FOLDER: work,
    N8N_ENCRYPTION_KEY: 'agent-sessions-real-n8n-test-key',
    N8N_RUNNERS_ENABLED: 'false',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    DB_SQLITE_POOL_SIZE: '1',
    NO_COLOR: '1',
  };
  const credentials = [
    { id: 'asCred00000001', name: 'Agent Sessions account', type: 'agentSessionsApi', data: { baseUrl: emulator.url, apiKey: API_KEY } },
    { id: 'asCred00000002', name: 'Agent Sessions (wrong key)', type: 'agentSessionsApi', data: { baseUrl: emulator.url, apiKey: 'wrong_key_for_the_test' } },
  ];
  writeFileSync(join(work, 'credentials.json'), JSON.stringify(credentials));
  execFileSync(n8n, ['import:credentials', `--input=${join(work, 'credentials.json')}`], { env, stdio: 'inherit' });
  const wfDir = join(work, 'workflows');
  cpSync(workflowsDir, wfDir, { recursive: true });
  execFileSync(n8n, ['import:workflow', '--separate', `--input=${wfDir}`], { env, stdio: 'inherit' });
  log(`Workflows imported: ${readdirSync(wfDir).join(', ')}`);

  log('create and wait');
  const created = execute(n8n, env, 'asCreateWait01');
  check(created.parsed?.status === 'success', `status success (got ${created.parsed?.status ?? created.stderr.slice(-400)})`);
  const [done] = items(created.parsed, 'Run the agent');
  check(done?.outcome === 'finished' && done?.status === 'completed', `the agent finished (${done?.outcome} ${done?.status})`);

  log('approval answered inside the workflow');
  const approval = execute(n8n, env, 'asApproval0001');
  check(approval.parsed?.status === 'success', `status success (got ${approval.parsed?.status ?? approval.stderr.slice(-400)})`);
  const [asked] = items(approval.parsed, 'Start the release');
  check(asked?.outcome === 'needs_person' && asked?.request?.kind === 'approval', 'the first wait stopped at the approval');
  const [approved] = items(approval.parsed, 'Approve');
  check(approved?.answer?.approved === true, 'the Respond step approved it');
  const [finished] = items(approval.parsed, 'Wait for the result');
  check(finished?.outcome === 'finished' && finished?.status === 'completed', `the session then completed (${finished?.status})`);

  log('a signal');
  const signal = execute(n8n, env, 'asSignal000001');
  check(signal.parsed?.status === 'success', `status success (got ${signal.parsed?.status ?? signal.stderr.slice(-400)})`);
  const [cancelled] = items(signal.parsed, 'Check');
  check(cancelled?.status === 'cancelled', `the session was cancelled (${cancelled?.status})`);

  log('a wrong key');
  const wrong = execute(n8n, env, 'asWrongKey0001');
  const error = JSON.stringify(wrong.parsed?.data?.resultData?.error ?? wrong.stdout + wrong.stderr);
  check(wrong.parsed?.status !== 'success', 'the execution failed');
  check(/401|refused|invalid/i.test(error), 'with an error that says the key was refused (401)');
  check(!error.includes(API_KEY) && !error.includes('wrong_key_for_the_test'), 'and without the key in it');
} finally {
  emulator.stop();
  rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  log(`\n${failures.length} check(s) failed`);
  process.exit(1);
}
log('\nAll real-n8n checks passed');
