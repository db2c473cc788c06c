/**
 * The secret variables' shared rules: a placeholder left from a template (`replace-me`, `changeme`…) is
 * refused wherever it is, and a signing secret shorter than Slack's. A deploy file applied unedited would
 * otherwise let anyone sign requests as Slack, read the per-workspace metrics or the audit. A problem names
 * the variable and the rule, never the value.
 */
import type { Problem } from './fields.js';
import { databasePassword } from './store.js';

/** What a template's placeholder starts with, whatever its case (`replace-me`, `CHANGEME-…`, `example…`). */
const PLACEHOLDER = /^(replace-me|change-me|changeme|placeholder|example)/i;
/** A Slack token's kind (`xoxb-`, `xapp-`) says nothing secret: the rest is what a placeholder replaces. */
const TOKEN_KIND = /^(xox[a-z]|xapp)-/i;
/**
 * Slack's signing secrets are 32 hex digits (the app's Basic Information page). A shorter one is not
 * Slack's: a value typed by hand, which anyone could guess and sign requests with.
 */
export const SIGNING_SECRET_LENGTH = 32;

/** Every variable that holds a secret, the signing secret's length rule apart. */
export const SECRET_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'AGENT_API_KEY',
  'METRICS_TOKEN',
  'AUDIT_TOKEN',
  'AGENT_KEY_ENCRYPTION_KEY',
  'AGENT_KEY_ENCRYPTION_KEY_PREVIOUS',
  'DATABASE_URL',
] as const;

type SecretEnv = {
  [name in Exclude<(typeof SECRET_VARIABLES)[number], 'AGENT_KEY_ENCRYPTION_KEY_PREVIOUS'>]?:
    | string
    | undefined;
} & { AGENT_KEY_ENCRYPTION_KEY_PREVIOUS?: string[] | undefined };

/** Whether `value` (one secret, as set) is a template's placeholder. */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value.trim().replace(TOKEN_KIND, ''));
}

/**
 * The secrets a variable holds: each previous encryption key; DATABASE_URL's password, or the whole value
 * where it is a placeholder and no URL at all; else the value.
 */
function secretsOf(name: (typeof SECRET_VARIABLES)[number], env: SecretEnv): string[] {
  if (name === 'AGENT_KEY_ENCRYPTION_KEY_PREVIOUS') return env[name] ?? [];
  if (name === 'DATABASE_URL' && env[name] !== undefined && isPlaceholder(env[name])) return [env[name]];
  if (name === 'DATABASE_URL') return [databasePassword(env[name])].filter((v) => v !== undefined);
  const value = env[name];
  return value === undefined || value.trim() === '' ? [] : [value];
}

/** Placeholders and a signing secret shorter than Slack's, each named by its variable and rule. */
export function secretProblems(env: SecretEnv): Problem[] {
  const problems: Problem[] = SECRET_VARIABLES.filter((name) => secretsOf(name, env).some(isPlaceholder)).map(
    (name): Problem => [
      name,
      `${name}${name === 'DATABASE_URL' && !isPlaceholder(env[name] ?? '') ? "'s password" : ''} is a template's placeholder (a value starting with replace-me, change-me, changeme, placeholder or example): set the real secret`,
    ],
  );
  const signing = env.SLACK_SIGNING_SECRET?.trim();
  if (signing && !isPlaceholder(signing) && signing.length < SIGNING_SECRET_LENGTH)
    problems.push([
      'SLACK_SIGNING_SECRET',
      `SLACK_SIGNING_SECRET must be at least ${SIGNING_SECRET_LENGTH} characters, as Slack's are (32 hex digits: copy it from the app's Basic Information page)`,
    ]);
  return problems;
}
