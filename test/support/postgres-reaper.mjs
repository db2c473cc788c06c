// Started beside the tests' own PostgreSQL (test/support/postgres.ts), detached: when the test run's process
// is gone without its teardown (Ctrl-C, a kill, a crash), it stops that server and removes its folder, so no
// server outlives the run and no folder is left in the temporary directory. A run that ends normally stops
// the server itself and kills this first.
// Arguments: the run's pid, the server's (postmaster's) pid, the server's folder.
import { rmSync } from 'node:fs';

const [runPid, serverPid, dir] = process.argv.slice(2);
const POLL_MS = 500;
/** After this long a server asked to stop is killed. */
const STOP_LIMIT_MS = 15_000;

const alive = (pid) => {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

let askedAt;
const poll = setInterval(() => {
  if (alive(runPid)) return;
  if (alive(serverPid)) {
    if (askedAt === undefined) {
      askedAt = Date.now();
      process.kill(Number(serverPid), 'SIGINT');
    } else if (Date.now() - askedAt > STOP_LIMIT_MS) process.kill(Number(serverPid), 'SIGKILL');
    return;
  }
  clearInterval(poll);
  rmSync(dir, { recursive: true, force: true });
}, POLL_MS);
