import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { kustomizationAt, type Manifest, render } from './kustomize.js';

// The manifests in deploy/ as Kubernetes reads them: each overlay rendered as kustomize renders it
// (./kustomize.ts, compared with `kubectl kustomize` where kubectl is installed), each object checked
// against Kubernetes' own JSON schemas (the kubernetes-models package, and its Prometheus Operator models
// for the ServiceMonitor and the PrometheusRule), then what the schemas can't say: the objects name each
// other, the probes ask routes the bot serves, the Ingress routes only Slack's paths, the NetworkPolicies
// let in only who needs in, resources are set from the memory benchmark. `npm run test:deploy` plays them
// with podman.

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
type Doc = Manifest;

/** Each kind's model, checking a document against its JSON schema. */
const MODELS: Record<string, (doc: Doc) => { validate(): void }> = {
  Deployment: (doc) => new Deployment(doc),
  Service: (doc) => new Service(doc),
  ConfigMap: (doc) => new ConfigMap(doc),
  Secret: (doc) => new Secret(doc),
  PersistentVolumeClaim: (doc) => new PersistentVolumeClaim(doc),
  PodDisruptionBudget: (doc) => new PodDisruptionBudget(doc),
  NetworkPolicy: (doc) => new NetworkPolicy(doc),
  Ingress: (doc) => new Ingress(doc),
  ServiceMonitor: (doc) => new ServiceMonitor(doc as ConstructorParameters<typeof ServiceMonitor>[0]),
  PrometheusRule: (doc) => new PrometheusRule(doc as ConstructorParameters<typeof PrometheusRule>[0]),
};

/** The overlays an operator applies, each rendered. */
const OVERLAYS = ['deploy/bot', 'deploy/trial', 'deploy/monitored'] as const;
const rendered = Object.fromEntries(OVERLAYS.map((dir) => [dir, render(join(root, dir))])) as Record<
  (typeof OVERLAYS)[number],
  Doc[]
>;
const bot = rendered['deploy/bot'];
const trial = rendered['deploy/trial'];
const monitored = rendered['deploy/monitored'];
const key = (doc: Doc) => `${doc.kind} ${doc.metadata?.name}`;

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
const version = JSON.parse(read('packages/slack-bot/package.json')).version as string;

/** Every path the bot serves beside Slack's: its custom routes' `path: '/…'` literals and path constants. */
function botRoutes(): Set<string> {
  const paths = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts'))
        for (const match of read(path).matchAll(/(?:path: |_PATH = )'(\/[a-z/._-]*)'/g))
          paths.add(match[1] as string);
    }
  };
  walk('packages/slack-bot/src');
  return paths;
}

/** The URLs Slack calls: manifest.yml's values that are URLs (events, commands, interactivity, OAuth). */
function slackUrls(): URL[] {
  const urls: URL[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === 'string' && node.startsWith('https://')) urls.push(new URL(node));
    else if (node && typeof node === 'object') Object.values(node).forEach(visit);
  };
  visit(parse(read('manifest.yml')));
  return urls;
}

describe('the manifests in deploy/', () => {
  it('are valid Kubernetes objects, in every overlay', () => {
    const all = new Map(OVERLAYS.flatMap((dir) => rendered[dir].map((doc) => [`${dir}: ${key(doc)}`, doc])));
    expect(all.size).toBeGreaterThanOrEqual(25);
    for (const [name, doc] of all) {
      const model = MODELS[doc.kind];
      expect(model, `a schema for ${doc.kind}`).toBeDefined();
      expect(() => model?.(doc).validate(), name).not.toThrow();
    }
    expect(kustomizationAt(join(root, 'deploy/trial')).resources).toEqual(['../bot', 'postgres.yaml']);
  });

  it('apply on a cluster without the Prometheus Operator; its objects come as a component', () => {
    // Kubernetes' own groups only: a cluster without the operator's CRDs refuses anything else, and with
    // it the whole `kubectl apply -k`.
    const builtIn = new Set(['v1', 'apps/v1', 'policy/v1', 'networking.k8s.io/v1']);
    for (const doc of [...bot, ...trial]) expect(builtIn, key(doc)).toContain(doc.apiVersion);
    const component = kustomizationAt(join(root, 'deploy/monitoring/operator'));
    expect(component.kind).toBe('Component');
    expect(kustomizationAt(join(root, 'deploy/monitored')).components).toEqual(['../monitoring/operator']);
    const added = monitored.filter((doc) => !bot.some((b) => key(b) === key(doc)));
    expect(added.map(key).sort()).toEqual([
      'PrometheusRule agent-sessions-bot',
      'ServiceMonitor agent-sessions-bot',
    ]);
    for (const doc of added) expect(doc.metadata.labels['app.kubernetes.io/part-of']).toBe('agent-sessions');
    expect(read('docs/deploy.md')).toContain('deploy/monitoring/operator');
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
    expect(podSpec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(podSpec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
  });

  it('name the image `npm run image` builds, which kustomize `images:` can point at a registry', () => {
    // The script's default, read with IMAGE_NAME unset.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'IMAGE_NAME'));
    const printed = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "import('./scripts/image.mjs').then((m) => console.log(m.IMAGE_NAME))"],
      { cwd: root, encoding: 'utf8', env },
    );
    expect(printed.stderr).toBe('');
    const defaultName = printed.stdout.trim();
    expect(defaultName).toBe(`localhost/agent-sessions-slack-bot:${version}`);
    expect(container.image).toBe(defaultName);
    expect(kustomizationAt(join(root, 'deploy/bot')).images).toEqual([
      { name: 'localhost/agent-sessions-slack-bot', newTag: version },
    ]);
    expect(parse(read('deploy/compose.yaml')).services.bot.image).toBe(defaultName);
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

  it('reach the pods through a Service, and have Prometheus scrape it with the Secret’s bearer', () => {
    const service = one(bot, 'Service');
    expect(selects(service.spec.selector)).toBe(true);
    expect(service.spec.ports[0].targetPort).toBe(container.ports[0].name);
    const monitor = one(monitored, 'ServiceMonitor');
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
    expect(one(monitored, 'PrometheusRule').spec.groups.length).toBeGreaterThanOrEqual(1);
  });
});

describe('the Ingress', () => {
  const ingress = one(bot, 'Ingress');
  const service = one(bot, 'Service');
  const paths = ingress.spec.rules.flatMap((rule: Doc) => rule.http.paths) as Doc[];

  it('routes every path Slack and agent hosts call, and only those, each exactly, to the bot’s Service', () => {
    const slack = new Set(slackUrls().map((url) => url.pathname));
    expect([...slack].sort()).toEqual(['/mcp', '/slack/events', '/slack/oauth_redirect']);
    const routed = paths.map((p) => p.path);
    // Slack's request URLs (Slackbot's MCP client calls /mcp), the install page the browser opens before
    // Slack's redirect back, and the RFC 9728 metadata an MCP host reads on a 401.
    const metadata = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];
    expect(routed.sort()).toEqual([...slack, '/slack/install', ...metadata].sort());
    // The metadata of /mcp itself is served at the two joined (RFC 9728's path-suffixed form).
    const [base = '', suffixed = ''] = metadata;
    const served = (path: string) =>
      botRoutes().has(path) ||
      path === '/slack/events' ||
      (path === suffixed && botRoutes().has(base) && botRoutes().has(path.slice(base.length)));
    for (const path of routed) expect(served(path), path).toBe(true);
    for (const path of paths) {
      // A Prefix `/` or `/slack` would let the world reach whatever the bot serves under it.
      expect(path.pathType, path.path).toBe('Exact');
      expect(path.backend.service).toEqual({
        name: service.metadata.name,
        port: { name: service.spec.ports[0].name },
      });
    }
    for (const internal of ['/metrics', '/audit', '/healthz', '/livez', '/readyz']) {
      expect(botRoutes()).toContain(internal);
      expect(routed).not.toContain(internal);
    }
  });

  it('serves TLS for the host manifest.yml names, from a documented certificate Secret', () => {
    const hosts = ingress.spec.rules.map((rule: Doc) => rule.host);
    expect(hosts).toEqual([...new Set(slackUrls().map((url) => url.host))]);
    expect(ingress.spec.tls).toEqual([{ hosts, secretName: expect.any(String) }]);
    const doc = read('docs/deploy.md');
    expect(doc).toContain(ingress.spec.tls[0].secretName);
    expect(doc).toContain('cert-manager.io/cluster-issuer');
  });
});

describe('the NetworkPolicies', () => {
  const policy = one(bot, 'NetworkPolicy');
  const namespaceOf = (rule: Doc) =>
    rule.from.map((peer: Doc) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']);

  it('let into the bot only the ingress controller’s and Prometheus’ namespaces, on its one port', () => {
    expect(selects(policy.spec.podSelector.matchLabels)).toBe(true);
    for (const rule of policy.spec.ingress as Doc[]) {
      // A rule without `from` lets in every pod of the cluster, to /metrics and /audit too.
      expect(rule.from?.length, 'each rule names who it lets in').toBeGreaterThan(0);
      for (const peer of rule.from) expect(Object.keys(peer)).toEqual(['namespaceSelector']);
      expect(rule.ports.map((p: Doc) => p.port)).toEqual([container.ports[0].name]);
    }
    const namespaces = (policy.spec.ingress as Doc[]).flatMap(namespaceOf);
    expect(namespaces).toEqual(['ingress-nginx', 'monitoring']);
    // The operator changes them for their cluster's: the doc names the label and both namespaces.
    const doc = read('docs/deploy.md');
    for (const word of ['kubernetes.io/metadata.name', ...namespaces]) expect(doc).toContain(word);
    const egress = policy.spec.egress.flatMap((rule: Doc) => rule.ports.map((p: Doc) => p.port));
    expect(egress).toEqual(expect.arrayContaining([53, 5432, 443]));
  });

  it('let into the trial PostgreSQL only the bot’s pods, and nothing out of it', () => {
    const postgres = one(trial, 'NetworkPolicy', 'agent-sessions-postgres');
    const server = one(trial, 'Deployment', 'agent-sessions-postgres');
    expect(postgres.spec.podSelector.matchLabels).toEqual(server.spec.template.metadata.labels);
    expect(postgres.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(postgres.spec.egress).toBeUndefined();
    expect(postgres.spec.ingress).toEqual([
      {
        from: [{ podSelector: { matchLabels: deployment.spec.selector.matchLabels } }],
        ports: [{ port: server.spec.template.spec.containers[0].ports[0].name, protocol: 'TCP' }],
      },
    ]);
  });
});

describe('the trial PostgreSQL', () => {
  const server = one(trial, 'Deployment', 'agent-sessions-postgres');
  const spec = server.spec.template.spec;
  const [postgres] = spec.containers;
  const env = Object.fromEntries(postgres.env.map((e: Doc) => [e.name, e]));

  it('takes its password from a Secret the operator creates, which the bot’s DATABASE_URL uses too', () => {
    expect(trial.filter((d) => d.kind === 'Secret').map(key)).toEqual(['Secret agent-sessions-bot']);
    expect(env.POSTGRES_PASSWORD).toEqual({
      name: 'POSTGRES_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'agent-sessions-postgres', key: 'POSTGRES_PASSWORD' } },
    });
    const botContainer = one(trial, 'Deployment').spec.template.spec.containers[0];
    const [password, url] = botContainer.env;
    expect(password).toEqual(env.POSTGRES_PASSWORD);
    // Kubernetes expands $(NAME) from the variables listed before it.
    expect(url.name).toBe('DATABASE_URL');
    const parsed = new URL(url.value.replace('$(POSTGRES_PASSWORD)', 'password'));
    expect(url.value).toContain(':$(POSTGRES_PASSWORD)@');
    expect(parsed.username).toBe(env.POSTGRES_USER.value);
    expect(parsed.pathname).toBe(`/${env.POSTGRES_DB.value}`);
    expect(parsed.hostname).toBe(one(trial, 'Service', 'agent-sessions-postgres').metadata.name);
    expect(read('docs/deploy.md')).toContain('kubectl create secret generic agent-sessions-postgres');
  });

  it('runs as the image’s postgres user on a read-only root, without privileges', () => {
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 999,
      fsGroup: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(postgres.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    // Where the server writes: its data on the claim, its socket and temporary files on emptyDirs.
    const volumes = Object.fromEntries(spec.volumes.map((v: Doc) => [v.name, v]));
    const mounts = Object.fromEntries(postgres.volumeMounts.map((m: Doc) => [m.mountPath, m.name]));
    expect(volumes[mounts['/var/lib/postgresql/data']].persistentVolumeClaim).toBeDefined();
    expect(volumes[mounts['/run/postgresql']].emptyDir).toBeDefined();
    expect(volumes[mounts['/tmp']].emptyDir).toBeDefined();
    expect(env.PGDATA.value.startsWith('/var/lib/postgresql/data/')).toBe(true);
  });

  it('is replaced, never doubled, on its one volume', () => {
    expect(server.spec.strategy.type).toBe('Recreate');
    expect(postgres.resources.limits.memory).toBeDefined();
  });
});

describe('the secrets in deploy/', () => {
  const SECRET_KEYS = [
    'SLACK_BOT_TOKEN',
    'SLACK_SIGNING_SECRET',
    'AGENT_API_KEY',
    'DATABASE_URL',
    'METRICS_TOKEN',
  ];

  it('are placeholders the bot refuses: each value starts with replace-me', () => {
    const secret = one(docsOf('deploy/bot/secret.yaml'), 'Secret');
    expect(Object.keys(secret.stringData).sort()).toEqual([...SECRET_KEYS].sort());
    for (const [name, value] of Object.entries(secret.stringData)) expect(value, name).toMatch(/^replace-me/);
    const example = Object.fromEntries(
      read('deploy/bot.env.example')
        .split('\n')
        .filter((line) => /^[A-Z]/.test(line))
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    for (const name of SECRET_KEYS.filter((n) => n !== 'DATABASE_URL'))
      expect(example[name], `bot.env.example's ${name}`).toMatch(/^replace-me/);
    // compose.yaml writes no secret: PostgreSQL's password is required from the environment.
    const compose = parse(read('deploy/compose.yaml')) as Doc;
    expect(compose.services.postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('are each explained in the doc, with the command that makes a random one', () => {
    const section = sectionOf(read('docs/deploy.md'), '## 4. Secrets');
    for (const name of [...SECRET_KEYS, 'POSTGRES_PASSWORD', 'replace-me', 'exit 2'])
      expect(section, name).toContain(name);
    expect(section).toContain('openssl rand -hex 32');
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

  it('publishes the bot on the loopback only, for a proxy on the host to expose', () => {
    const published = Object.values(compose.services).flatMap((s) => (s as Doc).ports ?? []);
    expect(published).toEqual(['127.0.0.1:3000:3000']);
    expect(sectionOf(read('docs/deploy.md'), '## Without Kubernetes')).toMatch(/proxy/);
  });
});

describe('images that can’t be pinned by digest here', () => {
  it('are each named in the doc with how the operator pins them', () => {
    const section = sectionOf(read('docs/deploy.md'), '## Pinning images');
    const byTag = new Set<string>();
    const images = [
      ...read('Containerfile').matchAll(/^ARG DEBIAN_IMAGE=(\S+)$/gm),
      ...read('deploy/compose.yaml').matchAll(/image: (\S+)/g),
      ...read('deploy/trial/postgres.yaml').matchAll(/image: (\S+)/g),
    ].map((m) => m[1] as string);
    for (const image of images) if (!image.includes('@sha256:')) byTag.add(image);
    expect(byTag.size).toBeGreaterThanOrEqual(3);
    for (const image of byTag) expect(section, image).toContain(image);
    for (const how of ['--build-arg DEBIAN_IMAGE=', 'digest:', 'npm run image -- --push'])
      expect(section).toContain(how);
  });
});

const docsOf = (path: string): Doc[] => parseAllDocuments(read(path)).map((d) => d.toJSON() as Doc);

/** A doc's section: from its heading to the next heading of the same level. */
function sectionOf(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = heading.split(' ')[0];
  const next = text.indexOf(`\n${level} `, start + heading.length + 1);
  return text.slice(start, next === -1 ? undefined : next);
}
