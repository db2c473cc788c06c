/**
 * How long a test may wait for something, on this machine, in this run.
 *
 * Every budget in the suites is written as what the wait may take on the reference machine (2 cores, quiet,
 * the suite at its planned concurrency) and passed through `patient()`, which multiplies it by the run's
 * patience: the machine's slowness measured by `vitest.config.ts` before the run (test/support/machine.ts),
 * or `TEST_PATIENCE` when given. A wait still ends as soon as its condition holds: a larger budget costs
 * nothing when all is well, and says "stuck" rather than "slow" only when it runs out.
 */
export function patience(): number {
  // Read at each call: the config sets it after this module is imported.
  const given = Number(process.env.TEST_PATIENCE);
  return Number.isFinite(given) && given >= 1 ? given : 1;
}

/** `referenceMs`, the budget on the reference machine, scaled to this one. */
export function patient(referenceMs: number): number {
  return Math.round(referenceMs * patience());
}
