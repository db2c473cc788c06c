import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  alertNames,
  dashboardExpressions,
  metricNames,
  prometheusRuleGroups,
  ruleFileGroups,
} from './monitoring.js';

// The alert rules' structure: every alert has a test that fires it, and the dashboard shows every figure an
// alert watches. Their unit tests run in promtool in `npm run test:deploy-tools`.
const dir = fileURLToPath(new URL('../../deploy/monitoring/', import.meta.url));

describe('the alert rules and the dashboard', () => {
  const tests = parse(readFileSync(`${dir}alerts.test.yaml`, 'utf8')) as {
    tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
  };
  const firedInTests = new Set(
    tests.tests.flatMap((t) =>
      t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
    ),
  );

  it('are the same rules in the rule file and in the Prometheus Operator’s PrometheusRule', () => {
    // Parsed, so comments and layout may differ; every group, rule, expression, label and annotation may not.
    const fromRuleFile = ruleFileGroups();
    expect(fromRuleFile.length).toBeGreaterThanOrEqual(1);
    expect(prometheusRuleGroups()).toEqual(fromRuleFile);
  });

  it('has a unit test that fires each alert', () => {
    const names = alertNames();
    expect(names.length).toBeGreaterThanOrEqual(5);
    for (const name of names) expect(firedInTests, name).toContain(name);
  });

  it('covers what the alerts are for: reminders, 429s, a failing service, leases, budgets', () => {
    const metrics = metricNames('alerts');
    for (const name of [
      'agent_question_reminders_total',
      'slack_rate_limited_total',
      'agent_service_failed_polls_total',
      'up',
      'agent_leases_held',
      'agent_service_request_budget_per_second',
      'slack_outbound_queue_max_depth',
    ])
      expect(metrics, name).toContain(name);
  });

  it('shows on the dashboard every metric an alert watches', () => {
    expect(dashboardExpressions().length).toBeGreaterThanOrEqual(8);
    const shown = metricNames('dashboard');
    for (const name of metricNames('alerts')) expect(shown, name).toContain(name);
  });
});
