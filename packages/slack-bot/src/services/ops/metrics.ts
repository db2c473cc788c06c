import type { FollowerStats } from '@agent-sessions/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one bot process, served at GET /metrics. `registry` holds series that name no
 * tenant (anyone who reaches the port reads them); `tenantRegistry` those labelled by workspace, served
 * only to a request bearing METRICS_TOKEN (metrics-route.ts).
 */
export class BotMetrics {
  readonly registry = new Registry();
  readonly tenantRegistry = new Registry();
  readonly slackCalls: Counter<'method' | 'outcome'>;
  readonly actions: Counter<'kind' | 'outcome'>;
  readonly errors: Counter<'where'>;
  readonly surfacing: Histogram<'kind'>;
  readonly feedback: Counter<'value'>;
  /** 429s Slack answered to calls of the outbound queue, by Slack's method name (its queue seeds them). */
  readonly rateLimited: Counter<'method'>;
  /** Agent messages per thread post (1 when the thread keeps up). */
  readonly batchSize: Histogram<string>;
  /** From a Slack request's arrival to the bot's answer (its ack): Slack gives up after 3 s. */
  readonly acks: Histogram<string>;
  /** What became of each thread post: posted, as_text, as_file, cant_post_here, gave_up, … */
  readonly postOutcomes: Counter<'outcome'>;
  /** Lease passes (renew, release, take) this replica has finished: its heartbeat in the store. */
  readonly leasePasses: Counter<string>;
  /** Sessions whose lease this replica held after its last pass. */
  readonly leasesHeld: Gauge<string>;
  /** Steps sent for questions nobody answered in time: `reminder`, `escalation`, `timeout`. */
  readonly questionReminders: Counter<'step'>;

  constructor(
    follower: () => FollowerStats | undefined,
    /** FOLLOW_REQUESTS_PER_SECOND: each API key's request budget, for alerts on how much of it is spent. */
    requestBudgetPerSecond?: number,
  ) {
    const registry = this.registry;
    const stats = follower;
    registerFollowerSeries(registry, stats);
    this.slackCalls = new Counter({
      name: 'slack_api_calls_total',
      help: 'Slack Web API calls made by the bot',
      labelNames: ['method', 'outcome'],
      registers: [registry],
    });
    this.actions = new Counter({
      name: 'agent_actions_total',
      help: 'What people did from Slack: starts, signals, answers',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    });
    this.errors = new Counter({
      name: 'agent_bot_errors_total',
      help: 'Errors the bot handled, by where they happened',
      labelNames: ['where'],
      registers: [registry],
    });
    this.surfacing = new Histogram({
      name: 'agent_surfacing_latency_seconds',
      help: 'From the agent writing a message (its timestamp) to the bot posting it in Slack',
      labelNames: ['kind'],
      buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    });
    this.feedback = new Counter({
      name: 'agent_report_feedback_total',
      help: 'Presses of 👍 (good) and 👎 (bad) under session reports',
      labelNames: ['value'],
      registers: [registry],
    });
    for (const value of ['good', 'bad']) this.feedback.inc({ value }, 0);
    this.rateLimited = new Counter({
      name: 'slack_rate_limited_total',
      help: 'Slack calls answered 429 (the outbound queue waited their Retry-After once per channel)',
      labelNames: ['method'],
      registers: [registry],
    });
    this.batchSize = new Histogram({
      name: 'slack_post_batch_size',
      help: 'Agent messages sent as one thread post (more than 1 when a thread was behind)',
      buckets: [1, 2, 3, 5, 8, 13, 20],
      registers: [registry],
    });
    this.acks = new Histogram({
      name: 'slack_request_ack_seconds',
      help: "From a Slack request's arrival at /slack/events to the bot's answer (its ack); Slack waits 3 s",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5],
      registers: [registry],
    });
    this.postOutcomes = new Counter({
      name: 'slack_post_outcomes_total',
      help: 'What became of thread posts: posted, appended, as_text, as_file, cant_post_here, retried, gave_up',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.leasePasses = new Counter({
      name: 'agent_lease_passes_total',
      help: 'Lease passes (renew, release, take over) this replica has finished',
      registers: [registry],
    });
    this.leasesHeld = new Gauge({
      name: 'agent_leases_held',
      help: 'Sessions whose lease this replica held after its last pass',
      registers: [registry],
    });
    this.questionReminders = questionRemindersCounter(registry);
    if (requestBudgetPerSecond !== undefined) registerRequestBudget(registry, requestBudgetPerSecond);
    // Known series exist from the start (Prometheus advice), so dashboards see zeros, not gaps.
    for (const kind of ['message', 'human_input']) this.surfacing.zero({ kind });
  }

  /**
   * The outbound queue's waiting calls per lane, read at each scrape: registered once, by the composition,
   * when the queue exists (the queue counts its calls here, so it is built after the metrics).
   */
  readQueue(depths: () => Map<string, number>): void {
    registerQueueDepths(this.registry, depths);
  }

  /** A lease pass finished, holding `held` leases: the replica's heartbeat in the store. */
  leasePassed(held: number): void {
    this.leasesHeld.set(held);
    this.leasePasses.inc();
  }

  /** The exposition: the tenant-free series, and with `tenants` the per-workspace ones too. */
  text(tenants = false): Promise<string> {
    return tenants ? Registry.merge([this.registry, this.tenantRegistry]).metrics() : this.registry.metrics();
  }
}

/** The follower's figures (sessions followed, requests, failed polls), read from its stats at each scrape. */
function registerFollowerSeries(registry: Registry, stats: () => FollowerStats | undefined): void {
  new Gauge({
    name: 'agent_sessions_followed',
    help: 'Sessions this replica follows now',
    registers: [registry],
    collect() {
      this.set(stats()?.followed ?? 0);
    },
  });
  new Counter({
    name: 'agent_service_requests_total',
    help: 'Requests sent to the Agent Session Service by the follower',
    registers: [registry],
    collect() {
      // The follower keeps the running total; the counter mirrors it.
      this.reset();
      this.inc(stats()?.requests ?? 0);
    },
  });
  new Counter({
    name: 'agent_service_failed_polls_total',
    help: 'Polls of a session that failed (service errors, timeouts, handler errors)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats()?.failedPolls ?? 0);
    },
  });
}

/** Steps sent for unanswered questions, every step's series there from the start (alerts read them). */
function questionRemindersCounter(registry: Registry): Counter<'step'> {
  const counter = new Counter({
    name: 'agent_question_reminders_total',
    help: 'Steps sent for questions nobody answered in time: reminder, escalation, timeout',
    labelNames: ['step'],
    registers: [registry],
  });
  for (const step of ['reminder', 'escalation', 'timeout']) counter.inc({ step }, 0);
  return counter;
}

/** Each API key's request budget, beside the requests sent: how much of it is spent, for alerts. */
function registerRequestBudget(registry: Registry, perSecond: number): void {
  new Gauge({
    name: 'agent_service_request_budget_per_second',
    help: 'Requests a second each API key may send to the service (FOLLOW_REQUESTS_PER_SECOND)',
    registers: [registry],
  }).set(perSecond);
}

/** The outbound queue's depths, read at each scrape. */
function registerQueueDepths(registry: Registry, outboundDepths: () => Map<string, number>): void {
  // No channel ids in labels: /metrics is unauthenticated and a channel id names who works on what.
  const depths = () => [...outboundDepths().values()];
  new Gauge({
    name: 'slack_outbound_queue_depth',
    help: 'Slack calls waiting in the outbound queue, all channels together',
    registers: [registry],
    collect() {
      this.set(depths().reduce((sum, depth) => sum + depth, 0));
    },
  });
  new Gauge({
    name: 'slack_outbound_queue_channels',
    help: 'Channels with Slack calls waiting in the outbound queue',
    registers: [registry],
    collect() {
      this.set(depths().filter((depth) => depth > 0).length);
    },
  });
  new Gauge({
    name: 'slack_outbound_queue_max_depth',
    help: 'Slack calls waiting in the busiest channel’s queue',
    registers: [registry],
    collect() {
      this.set(Math.max(0, ...depths()));
    },
  });
}
