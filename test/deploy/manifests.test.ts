import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

// The manifests in deploy/ as Kubernetes reads them: each document against Kubernetes' own JSON schemas
// (the kubernetes-models package, and its Prometheus Operator models for the ServiceMonitor and the
// PrometheusRule), then what
// the schemas can't say: the objects name each other, the probes ask routes the bot serves, resources are
// set from the memory benchmark. `npm run test:deploy` plays them with podman.

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML until the schema has checked them.
type Doc = Record<string, any>;
const docsOf = (path: string): Doc[] => parseAllDocuments(read(path)).map((d) => d.toJSON() as Doc);

/** Each kind's model, checking a document against its JSON schema. */
const MODELS: Record<string, (doc: Doc) => { validate(): void }> = {
  Deployment: (doc) => new Deployment(doc),
  Service: (doc) => new Service(doc),
  ConfigMap: (doc) => new ConfigMap(doc),
  Secret: (doc) => new Secret(doc),
  PersistentVolumeClaim: (doc) => new PersistentVolumeClaim(doc),
  PodDisruptionBudget: (doc) => new PodDisruptionBudget(doc),
  NetworkPolicy: (doc) => new NetworkPolicy(doc),
  ServiceMonitor: (doc) => new ServiceMonitor(doc as ConstructorParameters<typeof ServiceMonitor>[0]),
  PrometheusRule: (doc) => new PrometheusRule(doc as ConstructorParameters<typeof PrometheusRule>[0]),
};

const kustomization = (dir: string) => parse(read(`${dir}/kustomization.yaml`)) as { resources: string[] };
const botFiles = kustomization('deploy/bot').resources.map((file) => `deploy/bot/${file}`);
const bot = botFiles.flatMap(docsOf);
const trial = docsOf('deploy/trial/postgres.yaml');
const one = (docs: Doc[], kind: string, name = 'agent-sessions-bot') => {
  const found = docs.filter((d) => d.kind === kind && d.metadata?.name === name);
  expect(found, `one ${kind} ${name}`).toHaveLength(1);
  return found[0] as Doc;
};
const deployment = one(bot, 'Deployment');
const podSpec = deployment.spec.template.spec;
const container = podSpec.containers[0];
const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
const selects = (selector: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => podLabels[key] === value);

/** Every path the bot serves beside Slack's: its custom routes' `path: '/…'` literals. */
function botRoutes(): Set<string> {
  const paths = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts'))
        for (const match of read(path).matchAll(/path: '(\/[a-z/_-]*)'/g)) paths.add(match[1] as string);
    }
  };
  walk('packages/slack-bot/src');
  return paths;
}

describe('the manifests in deploy/', () => {
  it('are valid Kubernetes objects, each file and each document', () => {
    const all = [...bot, ...trial];
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const doc of all) {
      const model = MODELS[doc.kind];
      expect(model, `a schema for ${doc.kind}`).toBeDefined();
      expect(() => model?.(doc).validate(), `${doc.kind} ${doc.metadata?.name}`).not.toThrow();
    }
    expect(kustomization('deploy/trial').resources).toEqual(['../bot', 'postgres.yaml']);
  });

  it('run two replicas of the bot, rolled one at a time, never below one through a disruption', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(selects(deployment.spec.selector.matchLabels)).toBe(true);
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
    const budget = one(bot, 'PodDisruptionBudget');
    expect(selects(budget.spec.selector.matchLabels)).toBe(true);
    expect(budget.spec.minAvailable).toBe(1);
  });

  it('probe routes the bot serves, on the port it listens on', () => {
    const routes = botRoutes();
    const portNames = container.ports.map((p: Doc) => p.name);
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      const get = container[probe]?.httpGet;
      expect(get, probe).toBeDefined();
      expect(routes, `${probe} ${get.path}`).toContain(get.path);
      expect(portNames).toContain(get.port);
    }
    // Alive is not ready: a replica draining after SIGTERM leaves the Service without being restarted.
    expect(container.livenessProbe.httpGet.path).toBe('/livez');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.ports[0].containerPort).toBe(3000); // the image's PORT
  });

  it('size memory from the memory benchmark on PostgreSQL, and set CPU', () => {
    const memory = JSON.parse(read('bench/results/memory.json'));
    const mib = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1]);
    const { requests, limits } = container.resources;
    expect(requests.cpu).toMatch(/^\d+m$/);
    // The request holds a replica after 200 sessions; the limit twice that, for bursts.
    expect(mib(requests.memory) * 1.048576).toBeGreaterThanOrEqual(memory.postgres.afterSessions.rssMb);
    expect(mib(limits.memory)).toBeGreaterThanOrEqual(2 * mib(requests.memory));
  });

  it('run the image as it is built to run: non-root, read-only root, no privileges', () => {
    expect(podSpec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(podSpec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    expect(container.image).toMatch(/^ghcr\.io\/agent-sessions\/slack-bot:\d+\.\d+\.\d+$/);
  });

  it('take settings from the ConfigMap and secrets from the Secret, every name a documented variable', () => {
    const documented = new Set(
      [...read('docs/configuration.md').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]),
    );
    const configMap = one(bot, 'ConfigMap');
    const secret = one(bot, 'Secret');
    expect(container.envFrom).toEqual([
      { configMapRef: { name: configMap.metadata.name } },
      { secretRef: { name: secret.metadata.name } },
    ]);
    for (const name of [...Object.keys(configMap.data), ...Object.keys(secret.stringData)])
      expect(documented, name).toContain(name);
    for (const name of ['SLACK_BOT_TOKEN', 'AGENT_API_KEY', 'DATABASE_URL', 'METRICS_TOKEN'])
      expect(Object.keys(configMap.data)).not.toContain(name);
  });

  it('reach the pods through a Service, let in only that port, and have Prometheus scrape it', () => {
    const service = one(bot, 'Service');
    expect(selects(service.spec.selector)).toBe(true);
    expect(service.spec.ports[0].targetPort).toBe(container.ports[0].name);
    const policy = one(bot, 'NetworkPolicy');
    expect(selects(policy.spec.podSelector.matchLabels)).toBe(true);
    expect(policy.spec.ingress.flatMap((rule: Doc) => rule.ports.map((p: Doc) => p.port))).toEqual(['http']);
    const egress = policy.spec.egress.flatMap((rule: Doc) => rule.ports.map((p: Doc) => p.port));
    expect(egress).toEqual(expect.arrayContaining([53, 5432, 443]));
    const monitor = one(bot, 'ServiceMonitor');
    expect(monitor.spec.selector.matchLabels).toEqual(
      expect.objectContaining({
        'app.kubernetes.io/name': service.metadata.labels['app.kubernetes.io/name'],
      }),
    );
    expect(monitor.spec.endpoints[0]).toMatchObject({ port: service.spec.ports[0].name, path: '/metrics' });
    expect(botRoutes()).toContain('/metrics');
    const bearer = monitor.spec.endpoints[0].authorization.credentials;
    expect(one(bot, 'Secret', bearer.name).stringData).toHaveProperty(bearer.key);
    // Beside the ServiceMonitor, the alert rules for the same operator (test/deploy/alerts.test.ts
    // compares them with deploy/monitoring/alerts.yaml).
    expect(kustomization('deploy/bot').resources).toContain('prometheusrule.yaml');
    expect(one(bot, 'PrometheusRule').spec.groups.length).toBeGreaterThanOrEqual(1);
  });

  it('give the trial PostgreSQL the credentials the bot’s DATABASE_URL uses', () => {
    const secret = one(trial, 'Secret', 'agent-sessions-postgres');
    const service = one(trial, 'Service', 'agent-sessions-postgres');
    const patch = read('deploy/trial/kustomization.yaml');
    const url = new URL(/value: (postgres:\/\/\S+)/.exec(patch)?.[1] ?? '');
    expect(url.username).toBe(secret.stringData.POSTGRES_USER);
    expect(url.pathname).toBe(`/${secret.stringData.POSTGRES_DB}`);
    expect(url.hostname).toBe(service.metadata.name);
    const postgres = one(trial, 'Deployment', 'agent-sessions-postgres');
    expect(postgres.spec.strategy.type).toBe('Recreate');
    expect(postgres.spec.template.spec.containers[0].resources.limits.memory).toBeDefined();
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml')) as Doc;

  it('runs the bot as the cluster does, on a PostgreSQL it waits for', () => {
    const botService = compose.services.bot;
    expect(botService.image).toBe(container.image);
    expect(botService).toMatchObject({
      read_only: true,
      user: '10001:10001',
      cap_drop: ['ALL'],
      stop_grace_period: '30s',
    });
    expect(botService.depends_on.postgres.condition).toBe('service_healthy');
    expect(compose.services.postgres.healthcheck.test).toContain('pg_isready');
    expect(botService.environment.DATABASE_URL).toMatch(/@postgres:5432\/agents$/);
  });
});

// kustomize itself, where a kubectl with it is installed (none comes from Debian's packages or the npm
// registry): the overlays render, and the trial's patch lands in the bot's Secret.
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!hasKubectl)('the kustomizations, rendered by kubectl kustomize', () => {
  const render = (dir: string) => {
    const result = spawnSync('kubectl', ['kustomize', join(root, dir)], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return parseAllDocuments(result.stdout).map((d) => d.toJSON() as Doc);
  };

  it('deploy/bot renders every file it lists, labelled as part of agent-sessions', () => {
    const rendered = render('deploy/bot');
    expect(rendered.map((d) => d.kind).sort()).toEqual(bot.map((d) => d.kind).sort());
    for (const doc of rendered)
      expect(doc.metadata.labels['app.kubernetes.io/part-of']).toBe('agent-sessions');
  });

  it('deploy/trial adds the PostgreSQL and points the bot’s DATABASE_URL at it', () => {
    const rendered = render('deploy/trial');
    expect(rendered).toHaveLength(bot.length + trial.length);
    const secret = one(rendered, 'Secret');
    expect(secret.stringData.DATABASE_URL).toBe(
      'postgres://agents:replace-me@agent-sessions-postgres:5432/agents',
    );
  });
});
