import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

// What deploy/monitoring's rules and dashboard ask Prometheus for: their expressions and the metric
// names in them.
const dir = fileURLToPath(new URL('../../deploy/monitoring/', import.meta.url));

interface Rules {
  groups: { rules: { alert?: string; expr: string }[] }[];
}
interface Dashboard {
  panels: { targets: { expr: string }[] }[];
}

const rules = () => parse(readFileSync(`${dir}alerts.yaml`, 'utf8')) as Rules;

/** The groups as Prometheus reads them from a rule file: deploy/monitoring/alerts.yaml. */
export const ruleFileGroups = (): unknown[] => rules().groups;

/** The groups as the Prometheus Operator reads them: deploy/monitoring/operator/prometheusrule.yaml's spec. */
export const prometheusRuleGroups = (): unknown[] =>
  (
    parse(
      readFileSync(new URL('../../deploy/monitoring/operator/prometheusrule.yaml', import.meta.url), 'utf8'),
    ) as {
      spec: Rules;
    }
  ).spec.groups;

export const alertNames = (): string[] =>
  rules().groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));

export const alertExpressions = (): string[] => rules().groups.flatMap((g) => g.rules.map((r) => r.expr));

export const dashboardExpressions = (): string[] =>
  (JSON.parse(readFileSync(`${dir}dashboard.json`, 'utf8')) as Dashboard).panels.flatMap((p) =>
    p.targets.map((t) => t.expr),
  );

/** The metric names the alerts or the dashboard name: the bot's own (agent_…, slack_…) and `up`. */
export function metricNames(from: 'alerts' | 'dashboard'): string[] {
  const expressions = from === 'alerts' ? alertExpressions() : dashboardExpressions();
  const names = new Set<string>();
  for (const expr of expressions) {
    for (const match of expr.matchAll(/\b(?:agent|slack)_[a-z0-9_]+\b/g)) names.add(match[0]);
    if (/\bup\b/.test(expr)) names.add('up');
  }
  return [...names].sort();
}

/** A label matcher in a series selector: `step="reminder"`, `step=~"escalation|timeout"`. */
export interface LabelMatcher {
  metric: string;
  label: string;
  op: '=' | '=~' | '!=' | '!~';
  value: string;
  /** Where it is written, for a failure to name. */
  from: string;
}

/** The series the promtool tests feed the alerts (deploy/monitoring/alerts.test.yaml): what the bot is said to export. */
const testedSeries = (): string[] =>
  (
    parse(readFileSync(`${dir}alerts.test.yaml`, 'utf8')) as {
      tests: { input_series: { series: string }[] }[];
    }
  ).tests.flatMap((t) => t.input_series.map((s) => s.series));

/** The PrometheusRule's expressions (deploy/monitoring/operator/prometheusrule.yaml). */
const operatorExpressions = (): string[] =>
  (prometheusRuleGroups() as Rules['groups']).flatMap((g) => g.rules.map((r) => r.expr));

/**
 * Every label matcher on one of the bot's own series that the dashboard, the alert rules, the
 * PrometheusRule or the alerts' tests write down.
 */
export function labelMatchers(): LabelMatcher[] {
  const sources: [string, string[]][] = [
    ['dashboard.json', dashboardExpressions()],
    ['alerts.yaml', alertExpressions()],
    ['operator/prometheusrule.yaml', operatorExpressions()],
    ['alerts.test.yaml', testedSeries()],
  ];
  const out: LabelMatcher[] = [];
  for (const [from, texts] of sources) {
    for (const text of texts) {
      for (const [, metric, body] of text.matchAll(/\b((?:agent|slack)_[a-z0-9_]+)\{([^}]*)\}/g)) {
        for (const [, label, op, value] of (body ?? '').matchAll(/(\w+)\s*(=~|!=|!~|=)\s*"([^"]*)"/g))
          out.push({
            metric: metric as string,
            label: label as string,
            op: op as LabelMatcher['op'],
            value: value as string,
            from,
          });
      }
    }
  }
  return out;
}

/** The labels the dashboard's panels group by (`sum by (method)`), per metric: what their legends show. */
export function groupedLabels(): { metric: string; label: string }[] {
  const out: { metric: string; label: string }[] = [];
  for (const expr of dashboardExpressions()) {
    const by = /\bby\s*\(([^)]*)\)/.exec(expr)?.[1];
    if (!by) continue;
    for (const [metric] of expr.matchAll(/\b(?:agent|slack)_[a-z0-9_]+\b/g))
      for (const label of by.split(',').map((l) => l.trim()))
        if (label && label !== 'le') out.push({ metric: metric.replace(/_bucket$/, ''), label });
  }
  return out;
}
