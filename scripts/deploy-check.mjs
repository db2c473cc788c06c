// `npm run test:deploy`: the image and the manifests, proven with podman. Builds the image, then plays
// with `podman kube play` the emulator as the Agent Session Service, deploy/trial's PostgreSQL and
// deploy/bot's two replicas. The sandbox plays Slack from this process, outside the pods as Slack is, and
// this process routes Slack's requests to a ready replica as the Service would (podman has no Services).
// It runs sessions with questions through the sandbox; meanwhile it kills one replica (SIGKILL), then
// restarts both in turn (SIGTERM, as a rolling update does), measuring how soon the other replica takes
// the sessions over. It passes only when no agent message is lost or posted twice and every question can
// still be answered. Where podman can't run containers it says why and exits 0 (`--why-not` prints only
// the reason).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { startSandbox } from '../packages/slack-sandbox/dist/index.js';
import { buildImage, IMAGE_NAME, pushImage, VERSION } from './image.mjs';
import { DEBIAN_IMAGE, podman, podmanAsync, RUN_FLAGS, whyPodmanCannotRun } from './podman.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const POSTGRES_IMAGE = 'localhost/agent-sessions-check/postgres:15';
const CHANNEL = 'C0AGENTS';
const USERS = ['U0ALICE', 'U0BOB'];
/** Where the pods reach this machine (podman's name for the host on its networks). */
const HOST_FROM_PODS = 'host.containers.internal';
const BOT_PODS = ['agent-sessions-bot-pod-0', 'agent-sessions-bot-pod-1'];
const EMULATOR_POD = 'agent-sessions-emulator';
const PROBE_PATH = { live: '/livez', ready: '/readyz' };
const WAIT_MS = Number(process.env.DEPLOY_CHECK_WAIT_MS ?? 240_000);

const say = (line) => process.stdout.write(`${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something, or fails naming `what` (a function: read when it fails). */
async function waitFor(probe, what, timeoutMs = WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await sleep(250);
  }
  const named = typeof what === 'function' ? what() : what;
  throw new Error(`timed out waiting for ${named}${last ? ` (last: ${last.message})` : ''}`);
}

const docs = (file) => parseAllDocuments(readFileSync(join(root, file), 'utf8')).map((doc) => doc.toJSON());

/**
 * The manifests as podman plays them: deploy/trial's PostgreSQL (its volume and Deployment) and deploy/bot's
 * ConfigMap, Secret and Deployment, pointed at this run's images, sandbox and emulator. Services, the
 * Ingress, the PodDisruptionBudget, the NetworkPolicies and the Prometheus Operator's objects have no
 * meaning to podman; the manifests test checks them.
 */
function renderManifests({ sandbox, apiKey, password, metricsToken }) {
  const postgres = docs('deploy/trial/postgres.yaml').filter((d) =>
    ['PersistentVolumeClaim', 'Deployment'].includes(d.kind),
  );
  for (const doc of postgres)
    if (doc.kind === 'Deployment') doc.spec.template.spec.containers[0].image = POSTGRES_IMAGE;
  // The Secret the operator creates for the trial's PostgreSQL (docs/deploy.md, "The database").
  const postgresSecret = {
    metadata: { name: 'agent-sessions-postgres' },
    stringData: { POSTGRES_PASSWORD: password },
  };
  const bot = ['configmap', 'secret', 'deployment'].flatMap((name) => docs(`deploy/bot/${name}.yaml`));
  const sandboxPort = new URL(sandbox.apiUrl).port;
  for (const doc of bot) {
    if (doc.kind === 'ConfigMap')
      Object.assign(doc.data, {
        AGENT_SERVICE_URL: `http://${EMULATOR_POD}:4010`,
        SLACK_API_URL: `http://${HOST_FROM_PODS}:${sandboxPort}/api/`,
        // A killed replica's sessions wait this long for another: short, so the check is.
        LEASE_TTL_SECONDS: '6',
        FOLLOW_REQUESTS_PER_SECOND: '50',
        AGENT_SLACK_SURFACE: 'classic',
        AGENT_REMIND_AFTER: '0',
      });
    // Each of the Secret's placeholders replaced by this run's value, as an operator replaces them.
    if (doc.kind === 'Secret')
      fillSecret(doc, {
        SLACK_BOT_TOKEN: sandbox.botToken,
        SLACK_SIGNING_SECRET: sandbox.signingSecret,
        AGENT_API_KEY: apiKey,
        DATABASE_URL: `postgres://agents:${password}@agent-sessions-postgres-pod-0:5432/agents`,
        METRICS_TOKEN: metricsToken,
      });
    if (doc.kind === 'Deployment') {
      const [container] = doc.spec.template.spec.containers;
      container.image = IMAGE_NAME;
      container.imagePullPolicy = 'Never';
    }
  }
  // podman 4.3 stores a Secret document as YAML, then reads it back as JSON and fails: the check gives it
  // the Secrets itself, as podman secrets in the form its reader expects (each value in base64).
  const secrets = [postgresSecret, ...bot.filter((d) => d.kind === 'Secret')].map((d) => ({
    name: d.metadata.name,
    data: Object.fromEntries(
      Object.entries(d.stringData).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
  }));
  for (const doc of [...postgres, ...bot]) if (doc.kind === 'Deployment') unpublish(doc);
  const toYaml = (list) =>
    list
      .filter((d) => d.kind !== 'Secret')
      .map((d) => JSON.stringify(d))
      .join('\n---\n');
  return {
    emulator: JSON.stringify(emulatorPod(apiKey)),
    postgres: toYaml(postgres),
    bot: toYaml(bot),
    secrets,
    // podman plays each emptyDir and claim as a volume of that name, kept after `kube down`.
    volumes: [...postgres, ...bot]
      .filter((d) => d.kind === 'Deployment')
      .flatMap((d) => d.spec.template.spec.volumes ?? [])
      .map((v) => v.persistentVolumeClaim?.claimName ?? v.name),
  };
}

/**
 * Sets every key of the manifest's Secret to this run's value, as an operator replaces each placeholder. A
 * key the check has no value for stops it, rather than playing a placeholder (the bot refuses those), and
 * so does a value for a key the manifest lacks.
 */
function fillSecret(secret, values) {
  const name = secret.metadata.name;
  for (const key of Object.keys(values))
    if (!(key in secret.stringData)) throw new Error(`${key} is not a key of the Secret ${name}`);
  for (const key of Object.keys(secret.stringData)) {
    const value = values[key];
    if (typeof value !== 'string' || value === '')
      throw new Error(`no value for the Secret ${name}'s ${key}`);
    secret.stringData[key] = value;
  }
}

/**
 * The Agent Session Service, played as a pod beside the bots: the emulator, run by the bot image's Node
 * from this checkout's build (mounted read-only; the image itself carries only the bot).
 */
function emulatorPod(apiKey) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: EMULATOR_POD },
    spec: {
      containers: [
        {
          name: 'emulator',
          image: IMAGE_NAME,
          imagePullPolicy: 'Never',
          command: ['node', '/repo/packages/emulator/dist/cli.js', '--host', '0.0.0.0', '--port', '4010'],
          env: [{ name: 'EMULATOR_API_KEYS', value: apiKey }],
          volumeMounts: [{ name: 'repo', mountPath: '/repo', readOnly: true }],
        },
      ],
      volumes: [{ name: 'repo', hostPath: { path: root, type: 'Directory' } }],
    },
  };
}

/**
 * podman 4.3 publishes every containerPort on the host's same port, where PostgreSQL's 5432 may be taken
 * and two replicas can't both have 3000. Kubernetes publishes none of them, and the check reaches each pod
 * at its own address: the ports go, and the probes name theirs by number.
 */
function unpublish(deployment) {
  for (const container of deployment.spec.template.spec.containers) {
    const byName = Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort]));
    delete container.ports;
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      const action = container[probe]?.httpGet ?? container[probe]?.tcpSocket;
      if (action && typeof action.port === 'string') action.port = byName[action.port];
    }
  }
}

/**
 * A pod's address on podman's network (the host reaches it directly), from its infra container. Asked
 * each time: when a pod's container dies, podman restarts the pod, on a new address.
 */
async function podAddress(pod) {
  const infra = (await podmanAsync(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}'])).stdout;
  const format = '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}';
  return (await podmanAsync(['inspect', infra, '--format', format])).stdout;
}

async function get(url, headers = {}) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(3_000) });
  return { status: response.status, text: await response.text() };
}

/** The replicas answering their readiness probe now: what a Service would send Slack's requests to. */
async function readyReplicas() {
  const ready = [];
  for (const pod of BOT_PODS) {
    try {
      const base = `http://${await podAddress(pod)}:3000`;
      if ((await get(`${base}${PROBE_PATH.ready}`)).status === 200) ready.push({ pod, base });
    } catch {
      // Not ready: stopped, starting, or draining.
    }
  }
  return ready;
}

const textOf = (m) => (m ? `${m.text ?? ''}\n${JSON.stringify(m.blocks ?? [])}` : '');

/** Every key the bot's thread posts carry (a batch carries all of its messages' keys). */
const postKeys = (thread) =>
  thread.flatMap((m) => {
    const payload = m.metadata?.event_payload;
    if (typeof payload?.keys === 'string') return JSON.parse(payload.keys);
    return typeof payload?.key === 'string' ? [payload.key] : [];
  });

/** The sandbox's workspace, the replicas behind their "Service", and every session this run started. */
function makeRun(sandbox) {
  const ws = sandbox.workspace;
  const sessions = [];
  /** Sends `act` to a ready replica, as Slack does through the Service; another one if it refused. */
  const viaService = async (what, act) => {
    let lastError;
    for (let attempt = 0; attempt < 20; attempt++) {
      const ready = await waitFor(async () => {
        const replicas = await readyReplicas();
        return replicas.length > 0 ? replicas : undefined;
      }, `a ready replica for ${what}`);
      const replica = ready[attempt % ready.length];
      try {
        return await act(sandbox.driver(`${replica.base}/slack/events`));
      } catch (error) {
        // The connection was refused or reset (the replica stopped meanwhile): nothing was handled.
        lastError = error;
        await sleep(500);
      }
    }
    throw new Error(`no replica took ${what}: ${lastError?.message}`);
  };
  const threadOf = (session) => ws.replies(CHANNEL, session.cardTs);
  return {
    ws,
    sessions,
    threadOf,
    viaService,
    async start(scenario, label) {
      const user = USERS[sessions.length % USERS.length];
      const text = `start scenario:${scenario} deploy check ${label}`;
      await viaService(`the start of ${label}`, (driver) => driver.command({ user, channel: CHANNEL, text }));
      const card = await waitFor(
        () =>
          (ws.messages.get(CHANNEL) ?? []).find(
            (m) => !m.thread_ts && textOf(m).includes(`deploy check ${label}`) && /session `/.test(textOf(m)),
          ),
        `the card of ${label}`,
      );
      const session = { label, scenario, user, cardTs: card.ts };
      sessions.push(session);
      return session;
    },
  };
}

/** The check's sessions: half count to 30 in their thread, half ask for an approval. */
async function startBatch(run, phase, count) {
  for (let i = 0; i < count; i++)
    await run.start(i % 2 === 0 ? 'growing_round' : 'approval', `${phase}-${i + 1}`);
  say(`  started ${count} sessions (${phase})`);
}

const metricValue = (text, name) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

/** Each replica's leases, from its /metrics. */
async function leasesHeld() {
  const held = {};
  for (const pod of BOT_PODS) {
    try {
      held[pod] = metricValue(
        (await get(`http://${await podAddress(pod)}:3000/metrics`)).text,
        'agent_leases_held',
      );
    } catch {
      held[pod] = undefined;
    }
  }
  return held;
}

const botContainer = (pod) => `${pod}-bot`;

/** One SQL query in the played PostgreSQL; its rows as lines of `|`-separated fields. */
async function sql(run, query) {
  const result = await podmanAsync([
    'exec',
    '-e',
    `PGPASSWORD=${run.databasePassword}`,
    'agent-sessions-postgres-pod-0-postgres',
    'psql',
    '-h',
    '127.0.0.1',
    '-U',
    'agents',
    '-d',
    'agents',
    '-tAc',
    query,
  ]);
  return result.stdout.split('\n').filter(Boolean);
}

/**
 * Signals `pod`'s bot and measures the takeover: from the signal until every session the pod's process
 * held a lease on is leased by another process (a restarted container is another process, with a new
 * name) or has finished. Gives up after `withinMs`, saying how many were taken.
 */
async function takeover(run, pod, signal, withinMs = 60_000) {
  const rows = await sql(run, `SELECT session_id, owner FROM leases WHERE owner LIKE '${pod}-%'`);
  const held = rows.map((row) => row.split('|'));
  const ids = held.map(([id]) => `'${id}'`).join(',');
  const owners = [...new Set(held.map(([, owner]) => `'${owner}'`))].join(',');
  const signalledAt = Date.now();
  // Measured while the signal works: a draining replica hands its sessions over before it exits.
  const signalled = signal();
  let taken = 0;
  while (held.length > 0 && Date.now() - signalledAt < withinMs) {
    // A session that finished meanwhile needs no one: it counts as handed over.
    const query = `SELECT count(*) FROM sessions s LEFT JOIN leases l USING (session_id)
      WHERE s.session_id IN (${ids}) AND (s.finished OR l.owner NOT IN (${owners}))`;
    taken = Number((await sql(run, query))[0]);
    if (taken === held.length) break;
    await sleep(100);
  }
  const seconds = ((Date.now() - signalledAt) / 1000).toFixed(1);
  await signalled;
  return { sessions: held.length, taken, seconds };
}

const describeTakeover = ({ sessions, taken, seconds }) =>
  taken === sessions
    ? `its ${sessions} sessions taken over ${seconds} s after the signal`
    : `${taken} of its ${sessions} sessions taken over within ${seconds} s`;

/** Waits until `pod` answers its readiness probe again. */
const readyAgain = (pod) =>
  waitFor(async () => (await readyReplicas()).some((r) => r.pod === pod), `${pod} ready again`);

async function killOne(run) {
  const [victim] = BOT_PODS;
  await waitFor(async () => {
    const held = await leasesHeld();
    return BOT_PODS.every((pod) => (held[pod] ?? 0) > 0) ? held : undefined;
  }, 'both replicas holding leases');
  // The other replica takes the killed one's sessions once their leases expire (LEASE_TTL_SECONDS).
  const measured = await takeover(run, victim, () =>
    podmanAsync(['kill', '--signal', 'KILL', botContainer(victim)]),
  );
  run.figures.push({ signal: 'SIGKILL', pod: victim, ...measured });
  say(`  SIGKILL to ${victim}: ${describeTakeover(measured)}`);
  // What the kubelet does for a container that died (podman may have done it already): start it again.
  await podmanAsync(['start', botContainer(victim)], { allowFailure: true });
  await readyAgain(victim);
}

/** A replica's log so far (every run of its container), line by line. */
async function replicaLogLines(pod) {
  const { stdout, stderr } = await podmanAsync(['logs', botContainer(pod)], { allowFailure: true });
  return `${stdout}\n${stderr}`.split('\n');
}

/**
 * How long the stopped replica took from the signal to releasing its leases, by its own last log line
 * saying so (undefined when it has none): the rest of a takeover is the other replica's next pass.
 */
async function leasesReleasedAfterMs(pod) {
  const line = (await replicaLogLines(pod)).findLast((l) => l.includes('"msg":"leases released"'));
  try {
    return line ? JSON.parse(line).afterMs : undefined;
  } catch {
    return undefined;
  }
}

/** A rolling restart: each replica in turn gets SIGTERM (30 s grace), starts again and is ready. */
async function rollingRestart(run) {
  for (const [i, pod] of BOT_PODS.entries()) {
    const measured = await takeover(run, pod, () => podmanAsync(['stop', '--time', '30', botContainer(pod)]));
    const releasedAfterMs = await leasesReleasedAfterMs(pod);
    run.figures.push({ signal: 'SIGTERM', pod, ...measured, releasedAfterMs });
    const released = releasedAfterMs === undefined ? '' : ` (it released them ${releasedAfterMs} ms after)`;
    say(`  SIGTERM to ${pod}: ${describeTakeover(measured)}${released}`);
    await run.start('approval', `rolling-${i + 1}`);
    await podmanAsync(['start', botContainer(pod)]);
    await readyAgain(pod);
  }
}

/** Every question answered (through whichever replica is ready), every session finished. */
async function finishEverything(run) {
  const { ws } = run;
  for (const session of run.sessions.filter((s) => s.scenario === 'approval')) {
    const prompt = await waitFor(
      () =>
        run
          .threadOf(session)
          .find((m) => /The agent asks/.test(textOf(m)) && /input_approve/.test(textOf(m))),
      `the question of ${session.label}`,
    );
    await run.viaService(`the answer to ${session.label}`, (driver) =>
      driver.act({ user: session.user, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' }),
    );
  }
  for (const session of run.sessions) {
    const done =
      session.scenario === 'approval'
        ? /Deployed v2\.3\.1 to production/
        : /Finished after 30 progress notes/;
    await waitFor(
      () => run.threadOf(session).find((m) => done.test(textOf(m))),
      `the end of ${session.label}`,
    );
    await waitFor(
      () => /Completed/.test(textOf(ws.findMessage(CHANNEL, session.cardTs))),
      () =>
        `${session.label}'s card to say Completed (it still says: ${(ws.findMessage(CHANNEL, session.cardTs)?.text ?? '').slice(0, 80)})`,
    );
    session.done = true;
  }
}

/**
 * What each replica logged of the sessions that did not finish (read from their cards' session ids): who
 * followed them, took them over, let them go or failed to post, for whoever reads a failed run.
 */
async function sayReplicaLogs(run) {
  const ids = run.sessions
    .filter((session) => !session.done)
    .map((session) => /session `([^`]+)`/.exec(textOf(run.ws.findMessage(CHANNEL, session.cardTs)))?.[1])
    .filter(Boolean);
  if (ids.length === 0) return;
  for (const pod of BOT_PODS) {
    const lines = (await replicaLogLines(pod)).filter((line) => ids.some((id) => line.includes(id)));
    say(`  ${pod}, its log lines naming ${ids.join(', ')} (the last 40 of ${lines.length}):`);
    for (const line of lines.slice(-40)) say(`    ${line.slice(0, 400)}`);
  }
}

/** Lost and duplicated messages, thread by thread, each named. */
function tally(run) {
  const problems = [];
  let posts = 0;
  const count = (label, what, times) => {
    if (times === 0) problems.push({ label, kind: 'lost', what });
    for (let i = 1; i < times; i++) problems.push({ label, kind: 'duplicated', what });
  };
  for (const session of run.sessions) {
    const thread = run.threadOf(session);
    const keys = postKeys(thread);
    posts += keys.length;
    const seen = new Map();
    for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
    for (const [key, times] of seen) if (times > 1) count(session.label, `post ${key}`, times);
    if (session.scenario === 'growing_round') {
      const notes = thread.flatMap((m) =>
        [...(m.text ?? '').matchAll(/Progress note (\d+) of 30/g)].map((x) => Number(x[1])),
      );
      for (let n = 1; n <= 30; n++) count(session.label, `note ${n}`, notes.filter((x) => x === n).length);
    } else {
      // The agent's first words, its message before the question, and its report after the answer.
      for (const line of [
        "I'll work on:",
        'The release is built and tested',
        'to production after approval.',
      ])
        count(session.label, line, thread.filter((m) => (m.text ?? '').includes(line)).length);
    }
  }
  const lost = problems.filter((p) => p.kind === 'lost');
  const duplicated = problems.filter((p) => p.kind === 'duplicated');
  for (const p of problems) say(`  ${p.kind}: ${p.label}, ${p.what}`);
  return { sessions: run.sessions.length, posts, lost: lost.length, duplicated: duplicated.length };
}

/**
 * The digest `npm run image -- --push` prints is the one the destination stored: pushed here to an OCI
 * layout (no registry can be reached), it must be the manifest its index names.
 */
function checkPushedDigest() {
  const layout = mkdtempSync(join(tmpdir(), 'deploy-check-oci-'));
  try {
    const digest = pushImage(`oci:${layout}:${VERSION}`);
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8'));
    const stored = index.manifests.map((manifest) => manifest.digest);
    if (!stored.includes(digest))
      throw new Error(`the push reported ${digest}, the layout holds ${stored.join(', ')}`);
    say(`  pushed: ${digest}, the digest of the manifest stored`);
  } finally {
    rmSync(layout, { recursive: true, force: true });
  }
}

/** The images this run plays: the bot's (within its budget) and PostgreSQL's from Debian's packages. */
function buildImages() {
  say('Building the image…');
  const sizeMb = buildImage();
  say(`  ${IMAGE_NAME}: ${sizeMb.toFixed(1)} MB`);
  checkPushedDigest();
  const context = join(root, 'scripts/podman');
  podman([
    'build',
    '--pull=never',
    ...RUN_FLAGS,
    '--build-arg',
    `DEBIAN_IMAGE=${DEBIAN_IMAGE}`,
    '-f',
    'postgres.Containerfile',
    '-t',
    POSTGRES_IMAGE,
    context,
  ]);
}

/** The rendered manifests written to `dir`, and the Secrets made podman secrets; `down` undoes it all. */
function stage(dir, rendered) {
  const files = {
    emulator: join(dir, 'emulator.yaml'),
    postgres: join(dir, 'postgres.yaml'),
    bot: join(dir, 'bot.yaml'),
  };
  for (const [name, file] of Object.entries(files)) writeFileSync(file, rendered[name]);
  const down = () => {
    for (const file of [files.bot, files.postgres, files.emulator])
      podman(['kube', 'down', file], { allowFailure: true });
    for (const volume of rendered.volumes)
      podman(['volume', 'rm', '--force', volume], { allowFailure: true });
    for (const { name } of rendered.secrets) podman(['secret', 'rm', name], { allowFailure: true });
  };
  down();
  for (const { name, data } of rendered.secrets) {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(data));
    podman(['secret', 'create', name, file]);
  }
  return { files, down };
}

/** The emulator, PostgreSQL once it accepts connections, then the bots once the emulator answers. */
async function play(files) {
  say('Playing the emulator, then the manifests: PostgreSQL, then two bot replicas…');
  await podmanAsync(['kube', 'play', files.emulator]);
  await podmanAsync(['kube', 'play', files.postgres]);
  const pgReady = ['exec', 'agent-sessions-postgres-pod-0-postgres', 'pg_isready', '-h', '127.0.0.1'];
  await waitFor(
    async () => (await podmanAsync(pgReady, { allowFailure: true })).status === 0,
    'PostgreSQL accepting connections',
  );
  // Up once it answers anything (without a key, a refusal).
  await waitFor(
    async () => (await get(`http://${await podAddress(EMULATOR_POD)}:4010/v1/sessions`)).status < 500,
    'the emulator answering',
  );
  await podmanAsync(['kube', 'play', files.bot]);
  for (const pod of BOT_PODS) await readyAgain(pod);
  say('  both replicas ready');
}

/** Sessions through a kill and a rolling restart, then every question answered and the threads counted. */
async function exercise(run) {
  await startBatch(run, 'before', 6);
  await killOne(run);
  await startBatch(run, 'after-kill', 2);
  say('Rolling restart…');
  await rollingRestart(run);
  say('Answering every question…');
  // What went missing is counted and named even when a session never finishes.
  const unfinished = await finishEverything(run).then(
    () => undefined,
    (error) => error,
  );
  const result = tally(run);
  say(
    `${result.sessions} sessions, ${result.posts} thread posts: ${result.lost} lost, ${result.duplicated} duplicated`,
  );
  if (unfinished) {
    await sayReplicaLogs(run);
    throw unfinished;
  }
  if (result.lost !== 0 || result.duplicated !== 0) process.exitCode = 1;
  else say('deploy check passed');
}

async function main() {
  const why = whyPodmanCannotRun();
  if (process.argv.includes('--why-not')) {
    if (why) say(why);
    process.exit(why ? 1 : 0);
  }
  if (why) {
    say(`deploy check skipped: ${why}`);
    return;
  }
  buildImages();
  const apiKey = `emu_${randomBytes(16).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const sandbox = await startSandbox({ host: '0.0.0.0', triggerTtlMs: 10_000 });
  const dir = mkdtempSync(join(tmpdir(), 'deploy-check-'));
  const metricsToken = randomBytes(16).toString('hex');
  const { files, down } = stage(dir, renderManifests({ sandbox, apiKey, password, metricsToken }));
  try {
    await play(files);
    await exercise({ ...makeRun(sandbox), databasePassword: password, figures: [] });
  } finally {
    if (process.env.DEPLOY_CHECK_KEEP !== '1') down();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`deploy check failed: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
});
