/**
 * Slack's Web API rate limits, as token buckets on an injectable clock. Slack applies limits "per API
 * method per workspace per app" in tiers (1+, 20+, 50+, 100+ a minute, bursts tolerated), and
 * chat.postMessage its own way: about one message a second per channel with short bursts, under a
 * workspace-wide cap. Over a limit Slack answers HTTP 429 with `Retry-After` in seconds.
 * Sources: docs.slack.dev/apis/web-api/rate-limits and each method's "Rate limits" fact; the
 * conversations.history / replies figures for commercially distributed non-Marketplace apps are from
 * Slack's changelog of 2025-05-29 (1 request a minute, `limit` at most 15).
 */

/** A bucket: `burst` calls at once, refilled at `perMinute` calls a minute. */
export interface Rate {
  perMinute: number;
  burst: number;
}

export type Tier = 1 | 2 | 3 | 4;

/** How an app's conversations.history / replies are limited: Tier 3, or Slack's 2025 limits for
 *  commercially distributed apps outside the Marketplace. */
export type HistoryProfile = 'internal' | 'non-marketplace';

export interface RateLimitConfig {
  tiers: Record<Tier, Rate>;
  /** chat.postMessage per channel. */
  postPerChannel: Rate;
  /** chat.postMessage across the workspace. */
  postWorkspace: Rate;
  /** conversations.history and conversations.replies, each per workspace. */
  history: Rate;
  /** The largest `limit` those two accept, and what they use when none is given. */
  historyPage: { max: number; default: number };
}

export type RateLimitOptions = Partial<Omit<RateLimitConfig, 'tiers'>> & {
  tiers?: Partial<Record<Tier, Rate>>;
  /** A preset for history / replies; `history` and `historyPage` given explicitly win over it. */
  historyProfile?: HistoryProfile;
};

/** Each method the sandbox serves, with the tier Slack documents for it ('post' and 'history' are the
 *  special rules above). A method missing here is Tier 3. */
export const METHOD_TIERS: Record<string, Tier | 'post' | 'history'> = {
  'apps.connections.open': 1,
  'auth.test': 4, // Slack: "special", generous
  'chat.postMessage': 'post',
  'chat.update': 3,
  'chat.delete': 3,
  'chat.postEphemeral': 4,
  'chat.getPermalink': 4, // Slack: "special", generous
  'conversations.info': 3,
  'conversations.members': 4,
  'conversations.open': 3,
  'conversations.history': 'history',
  'conversations.replies': 'history',
  'users.info': 4,
  'usergroups.users.list': 2,
  'views.open': 4,
  'views.push': 4,
  'views.update': 4,
  'views.publish': 4,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
  'files.info': 4,
  'reactions.add': 3,
  'reactions.remove': 2,
  'reactions.get': 3,
  // The agent platform, each as its reference page gives it (assistant.threads.setStatus: "special").
  'agents.sessions.setStatus': 3,
  'agents.sessions.rename': 3,
  'chat.startStream': 2,
  'chat.appendStream': 4,
  'chat.stopStream': 2,
  'assistant.threads.setSuggestedPrompts': 4,
  'assistant.threads.setTitle': 4,
  // Workflow Builder's custom steps.
  'functions.completeSuccess': 3,
  'functions.completeError': 3,
  'assistant.threads.setStatus': 4,
};

const HISTORY_PRESETS: Record<HistoryProfile, Pick<RateLimitConfig, 'history' | 'historyPage'>> = {
  internal: { history: { perMinute: 50, burst: 50 }, historyPage: { max: 1000, default: 100 } },
  'non-marketplace': { history: { perMinute: 1, burst: 1 }, historyPage: { max: 15, default: 15 } },
};

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  tiers: {
    1: { perMinute: 1, burst: 3 },
    2: { perMinute: 20, burst: 20 },
    3: { perMinute: 50, burst: 50 },
    4: { perMinute: 100, burst: 100 },
  },
  postPerChannel: { perMinute: 60, burst: 5 },
  postWorkspace: { perMinute: 300, burst: 50 },
  ...HISTORY_PRESETS.internal,
};

function checkRate(rate: Rate, name: string): Rate {
  for (const key of ['perMinute', 'burst'] as const) {
    const v = rate[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new Error(`${name}.${key} must be a positive number, got ${String(v)}`);
  }
  if (!Number.isInteger(rate.burst))
    throw new Error(`${name}.burst must be a whole number, got ${rate.burst}`);
  return { perMinute: rate.perMinute, burst: rate.burst };
}

/** The defaults with `options` laid over them, every figure checked. */
export function resolveRateLimits(options: RateLimitOptions = {}): RateLimitConfig {
  const preset = HISTORY_PRESETS[options.historyProfile ?? 'internal'];
  if (!preset)
    throw new Error(
      `historyProfile must be "internal" or "non-marketplace", got "${options.historyProfile}"`,
    );
  const tiers = { ...DEFAULT_RATE_LIMITS.tiers, ...options.tiers };
  const page = options.historyPage ?? preset.historyPage;
  for (const key of ['max', 'default'] as const) {
    if (!Number.isInteger(page[key]) || page[key] < 1)
      throw new Error(`historyPage.${key} must be a whole number of at least 1, got ${String(page[key])}`);
  }
  return {
    tiers: {
      1: checkRate(tiers[1], 'tiers.1'),
      2: checkRate(tiers[2], 'tiers.2'),
      3: checkRate(tiers[3], 'tiers.3'),
      4: checkRate(tiers[4], 'tiers.4'),
    },
    postPerChannel: checkRate(options.postPerChannel ?? DEFAULT_RATE_LIMITS.postPerChannel, 'postPerChannel'),
    postWorkspace: checkRate(options.postWorkspace ?? DEFAULT_RATE_LIMITS.postWorkspace, 'postWorkspace'),
    history: checkRate(options.history ?? preset.history, 'history'),
    historyPage: { max: page.max, default: Math.min(page.default, page.max) },
  };
}

const ENV_RATES: Record<string, (o: RateLimitOptions, r: Rate) => void> = {
  SANDBOX_RATE_TIER1: (o, r) => {
    o.tiers = { ...o.tiers, 1: r };
  },
  SANDBOX_RATE_TIER2: (o, r) => {
    o.tiers = { ...o.tiers, 2: r };
  },
  SANDBOX_RATE_TIER3: (o, r) => {
    o.tiers = { ...o.tiers, 3: r };
  },
  SANDBOX_RATE_TIER4: (o, r) => {
    o.tiers = { ...o.tiers, 4: r };
  },
  SANDBOX_RATE_POST_CHANNEL: (o, r) => {
    o.postPerChannel = r;
  },
  SANDBOX_RATE_POST_WORKSPACE: (o, r) => {
    o.postWorkspace = r;
  },
  SANDBOX_RATE_HISTORY: (o, r) => {
    o.history = r;
  },
};

/**
 * The limits the environment asks for: `false` when SANDBOX_RATE_LIMITS=off. Figures are
 * `<per minute>:<burst>` (SANDBOX_RATE_TIER1..4, SANDBOX_RATE_POST_CHANNEL, SANDBOX_RATE_POST_WORKSPACE,
 * SANDBOX_RATE_HISTORY); SANDBOX_HISTORY_PROFILE=internal|non-marketplace; SANDBOX_HISTORY_PAGE_MAX.
 */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): RateLimitOptions | false {
  const switchValue = (env.SANDBOX_RATE_LIMITS ?? 'on').trim().toLowerCase();
  if (switchValue === 'off') return false;
  if (switchValue !== 'on' && switchValue !== '')
    throw new Error(`SANDBOX_RATE_LIMITS must be "on" or "off", got "${env.SANDBOX_RATE_LIMITS}"`);
  const options: RateLimitOptions = {};
  for (const [name, apply] of Object.entries(ENV_RATES)) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const match = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+)\s*$/.exec(raw);
    if (!match) throw new Error(`${name} must be "<per minute>:<burst>", e.g. "60:5", got "${raw}"`);
    apply(options, checkRate({ perMinute: Number(match[1]), burst: Number(match[2]) }, name));
  }
  const profile = env.SANDBOX_HISTORY_PROFILE?.trim();
  if (profile) {
    if (profile !== 'internal' && profile !== 'non-marketplace')
      throw new Error(`SANDBOX_HISTORY_PROFILE must be "internal" or "non-marketplace", got "${profile}"`);
    options.historyProfile = profile;
  }
  const pageMax = env.SANDBOX_HISTORY_PAGE_MAX?.trim();
  if (pageMax) {
    const max = Number(pageMax);
    if (!Number.isInteger(max) || max < 1)
      throw new Error(`SANDBOX_HISTORY_PAGE_MAX must be a whole number of at least 1, got "${pageMax}"`);
    const preset = HISTORY_PRESETS[options.historyProfile ?? 'internal'];
    options.historyPage = { max, default: Math.min(preset.historyPage.default, max) };
  }
  return options;
}

class Bucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly rate: Rate,
    now: number,
  ) {
    this.#tokens = rate.burst;
    this.#at = now;
  }

  #refill(now: number): void {
    const perMs = this.rate.perMinute / 60_000;
    this.#tokens = Math.min(this.rate.burst, this.#tokens + Math.max(0, now - this.#at) * perMs);
    this.#at = now;
  }

  /** Milliseconds until a call fits (0: it fits now). */
  waitMs(now: number): number {
    this.#refill(now);
    if (this.#tokens >= 1) return 0;
    return Math.ceil((1 - this.#tokens) / (this.rate.perMinute / 60_000));
  }

  take(now: number): void {
    this.#refill(now);
    this.#tokens -= 1;
  }
}

export type Verdict = { ok: true } | { ok: false; retryAfterSeconds: number; limit: string };

/** Decides, call by call, whether Slack would serve it now. One limiter is one app in one workspace. */
export class RateLimiter {
  readonly config: RateLimitConfig;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions = {}, now: () => number = Date.now) {
    this.config = resolveRateLimits(options);
    this.#now = now;
  }

  #bucket(key: string, rate: Rate): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new Bucket(rate, this.#now());
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** The buckets a call draws from, with a name for each (shown in the event log). */
  #bucketsFor(method: string, channel: string | undefined): Array<[string, Bucket]> {
    const tier = METHOD_TIERS[method] ?? 3;
    if (tier === 'post') {
      const list: Array<[string, Bucket]> = [
        ['chat.postMessage workspace-wide', this.#bucket('post:*', this.config.postWorkspace)],
      ];
      if (channel)
        list.unshift([
          `chat.postMessage in ${channel}`,
          this.#bucket(`post:${channel}`, this.config.postPerChannel),
        ]);
      return list;
    }
    if (tier === 'history') return [[`${method}`, this.#bucket(method, this.config.history)]];
    return [[`${method} (Tier ${tier})`, this.#bucket(method, this.config.tiers[tier])]];
  }

  /** Admits the call (and counts it) or says how long to wait, as Slack's `Retry-After` does. */
  check(method: string, channel?: string): Verdict {
    const now = this.#now();
    const buckets = this.#bucketsFor(method, channel);
    let worst: { ms: number; limit: string } | undefined;
    for (const [limit, bucket] of buckets) {
      const ms = bucket.waitMs(now);
      if (ms > 0 && (!worst || ms > worst.ms)) worst = { ms, limit };
    }
    if (worst)
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(worst.ms / 1000)), limit: worst.limit };
    for (const [, bucket] of buckets) bucket.take(now);
    return { ok: true };
  }
}
