// `node scripts/image-check.mjs [IMAGE]`: the built image as a user runs it with plain podman or docker
// (CONTAINER_ENGINE=docker): within its size budget, as a non-root user with a HEALTHCHECK and OCI
// labels, serving its probes from a read-only root filesystem, and exiting 0 soon after SIGTERM. The bot
// in it talks to an emulator and a sandbox started here, on the host's network, and to a scratch database
// on TEST_DATABASE_URL's PostgreSQL.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmulator } from '../packages/emulator/dist/index.js';
import { startSandbox } from '../packages/slack-sandbox/dist/index.js';
import { IMAGE_BUDGET_MB, IMAGE_NAME } from './image.mjs';
import { CONTAINERS_CONF, RUN_FLAGS } from './podman.mjs';

/** The probes the bot serves: liveness (the process answers) and readiness (it takes work). */
export const PROBES = { live: '/livez', ready: '/readyz' };
const engine = process.env.CONTAINER_ENGINE ?? 'podman';
const say = (line) => process.stdout.write(`${line}\n`);

function run(args, { allowFailure = false } = {}) {
  const env = engine === 'podman' ? { ...process.env, CONTAINERS_CONF } : process.env;
  const result = spawnSync(engine, args, { env, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0 && !allowFailure)
    throw new Error(`${engine} ${args.join(' ')} failed (${result.status}): ${result.stderr.trim()}`);
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function waitFor(probe, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What the image says of itself: size, user, health check, labels, PID 1. */
export function checkImageConfig(image) {
  const [inspected] = JSON.parse(run(['image', 'inspect', image]).stdout);
  const sizeMb = inspected.Size / 1e6;
  const config = inspected.Config ?? {};
  const problems = [];
  if (sizeMb > IMAGE_BUDGET_MB)
    problems.push(`${sizeMb.toFixed(1)} MB, over the ${IMAGE_BUDGET_MB} MB budget`);
  if (!/^[1-9]\d*(:\d+)?$/.test(config.User ?? ''))
    problems.push(`runs as "${config.User}", not a numeric non-root user`);
  if (!(config.Healthcheck ?? inspected.Healthcheck)?.Test?.length) problems.push('no HEALTHCHECK');
  for (const label of ['title', 'version', 'revision', 'source', 'licenses'])
    if (!config.Labels?.[`org.opencontainers.image.${label}`])
      problems.push(`no org.opencontainers.image.${label} label`);
  if (config.Entrypoint?.[0] !== '/usr/bin/tini') problems.push('PID 1 is not tini');
  return { sizeMb, problems };
}

async function scratchDatabase() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is required: the bot in the image runs on PostgreSQL');
  const name = `image_check_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Runs the image read-only as a user would, waits for its probes, then stops it with SIGTERM. */
async function runContainer(image) {
  const apiKey = `emu_${randomBytes(16).toString('hex')}`;
  const emulator = await startEmulator({ port: 0, apiKeys: [apiKey] });
  const sandbox = await startSandbox({});
  const database = await scratchDatabase();
  const port = await freePort();
  const name = `agent-sessions-image-check-${randomBytes(4).toString('hex')}`;
  const env = {
    SLACK_BOT_TOKEN: sandbox.botToken,
    SLACK_SIGNING_SECRET: sandbox.signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    AGENT_SERVICE_URL: emulator.url,
    AGENT_API_KEY: apiKey,
    DATABASE_URL: database.url,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  try {
    run([
      'run',
      '-d',
      '--name',
      name,
      '--network',
      'host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      ...(engine === 'podman' ? RUN_FLAGS : []),
      ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
      image,
    ]);
    for (const [kind, path] of Object.entries(PROBES))
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}${path}`)).status === 200,
        `${kind} ${path}`,
      );
    say(`  serves ${Object.values(PROBES).join(' and ')} from a read-only root`);
    const uid = run(['exec', name, 'node', '-e', 'process.stdout.write(String(process.getuid()))']).stdout;
    if (uid === '0') throw new Error('the bot runs as root');
    const stoppedAt = Date.now();
    run(['stop', '--time', '30', name]);
    const seconds = (Date.now() - stoppedAt) / 1000;
    const exitCode = run(['inspect', name, '--format', '{{.State.ExitCode}}']).stdout;
    if (exitCode !== '0')
      throw new Error(`after SIGTERM it exited ${exitCode}:\n${run(['logs', name]).stderr}`);
    say(`  runs as uid ${uid}; exited 0 ${seconds.toFixed(1)} s after SIGTERM`);
  } finally {
    run(['rm', '--force', name], { allowFailure: true });
    await sandbox.close();
    await emulator.close();
    await database.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const image = process.argv[2] ?? IMAGE_NAME;
  const { sizeMb, problems } = checkImageConfig(image);
  say(`${image}: ${sizeMb.toFixed(1)} MB`);
  if (problems.length > 0) {
    process.stderr.write(`image check failed:\n- ${problems.join('\n- ')}\n`);
    process.exit(1);
  }
  runContainer(image).then(
    () => say('image check passed'),
    (error) => {
      process.stderr.write(`image check failed: ${error.message}\n`);
      process.exit(1);
    },
  );
}
