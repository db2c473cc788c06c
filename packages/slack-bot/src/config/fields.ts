/**
 * The kinds of variable the concerns' schemas are made of, so that a kind of value is read, and a
 * problem with it said, the same way wherever it appears.
 */
import { z } from 'zod';
import { parseEntry } from '../services/people/workspace-entries.js';

/** A problem found across variables: the variable it is reported under, and what is wrong. */
export type Problem = [variable: string, message: string];

/** `NAME=` (an env file's empty line) means unset. */
export const blankAsUnset = <T extends z.ZodType>(inner: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), inner);

/** Any text; blank is unset. */
export const optionalText = blankAsUnset(z.string().optional());

/** An http(s) URL, the problem named by the variable. */
export const httpUrl = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).optional();

/** A whole number, each problem named by the variable. */
export const wholeNumber = (name: string) =>
  z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be a whole number`);

/** `90s`, `15m`, `2h`, `500ms`, or plain seconds (`900`), into milliseconds. */
export function parseDuration(raw: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw);
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's').toLowerCase() as 'ms'];
  return Math.round(Number(match[1]) * unit);
}

/** A duration (see parseDuration) in milliseconds; blank is unset. */
export const duration = (name: string) =>
  blankAsUnset(
    z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined) return undefined;
        const ms = parseDuration(raw);
        if (ms === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `${name} must be a duration like 90s, 15m, 2h or a number of seconds`,
          });
          return z.NEVER;
        }
        return ms;
      }),
  );

/** A comma-separated setting's entries, each trimmed, empty ones dropped (`a, b,,c` → a, b, c). */
export function commaSeparated(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const TEAM = /^T[A-Z0-9]{2,}$/;

/**
 * A comma-separated list of workspace entries (services/people/workspace-entries.ts), each checked: its
 * prefix a team id, its id of the kinds `rule` names. A problem names the variable, the entry and the rule.
 */
export function entryList(name: string, id: RegExp, rule: string, options: { onePerTeam?: boolean } = {}) {
  return z
    .string()
    .optional()
    .transform(commaSeparated)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      for (const raw of list) {
        const entry = parseEntry(raw);
        const got = `; got "${raw.slice(0, 60)}"`;
        const problem =
          entry.team !== undefined && !TEAM.test(entry.team)
            ? `${name}'s workspace prefix must be a team id (T…) and a colon, like T0NORTH:${id.test(entry.id) ? entry.id : '…'}${got}`
            : !id.test(entry.id)
              ? `${name} ${rule}, each optionally prefixed with its workspace (T0NORTH:…)${got}`
              : undefined;
        if (problem) {
          ctx.addIssue({ code: 'custom', message: problem });
          continue;
        }
        const slot = entry.team ?? '(no prefix)';
        if (options.onePerTeam && seen.has(slot)) {
          ctx.addIssue({
            code: 'custom',
            message: `${name} takes one target per workspace and one without a prefix; ${slot} has a second${got}`,
          });
        }
        seen.add(slot);
      }
    });
}

/**
 * Under OAuth installs, a list of places (channels, dm, user groups told of a question) names the workspace
 * of each entry: a place's id doesn't say which workspace reads it (dm is in every one, a shared channel in
 * two).
 */
export function placesNameTheirWorkspace(name: string, entries: string[]): Problem[] {
  return entries
    .filter((raw) => parseEntry(raw).team === undefined)
    .map((raw) => [
      name,
      `${name} under OAuth installs: each entry names its workspace, like T0NORTH:${raw.slice(0, 40)} (a place's id doesn't say which workspace reads it: dm is in every one, a shared channel in two); got "${raw.slice(0, 60)}"`,
    ]);
}
