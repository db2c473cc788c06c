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

/** The groups as the Prometheus Operator reads them: deploy/bot/prometheusrule.yaml's spec. */
export const prometheusRuleGroups = (): unknown[] =>
  (
    parse(readFileSync(new URL('../../deploy/bot/prometheusrule.yaml', import.meta.url), 'utf8')) as {
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
