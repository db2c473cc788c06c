/**
 * The PostgreSQL server of this run, for the tests that need one: TEST_DATABASE_URL, which the globalSetup of
 * their projects (test/support/postgres.ts) sets to a server it started where the environment named none.
 */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'TEST_DATABASE_URL is unset: run the tests through the root vitest.config.ts, whose globalSetup (test/support/postgres.ts) sets it',
    );
  return url;
}
