// `npm run test:busy`: the whole suite (`vitest run`, after `npm run build`) with two CPU-bound processes
// running beside it from before its first test to after its last, as on a shared CI runner or a laptop that
// is compiling something else. The suite must pass the same; it says "busy" in its plan line because its
// calibration sees the burners (test/support/machine.ts). Extra arguments go to vitest.
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';

const BURNERS = 2;
const out = (line) => process.stdout.write(`${line}\n`);

// A burner spins one core until it is killed: the tightest loop that still answers SIGTERM.
const burners = Array.from({ length: BURNERS }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopBurners = () => {
  for (const burner of burners) if (burner.exitCode === null) burner.kill('SIGKILL');
};
process.on('exit', stopBurners);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopBurners();
    process.exit(130);
  });
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
out(
  `test:busy: ${BURNERS} CPU-bound processes beside the suite on ${availableParallelism()} cores (load ${load()})`,
);
const started = Date.now();
const vitest = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
vitest.on('exit', (code, signal) => {
  const seconds = Math.round((Date.now() - started) / 1000);
  const alive = burners.filter((burner) => burner.exitCode === null && burner.signalCode === null).length;
  stopBurners();
  out(
    `test:busy: the suite took ${seconds} s beside ${alive} of ${BURNERS} burners still running (load ${load()})`,
  );
  // A burner that died early would make this an ordinary run: say so, and fail.
  if (alive !== BURNERS) {
    out('test:busy: a burner stopped before the suite ended; this was not a busy run');
    process.exit(1);
  }
  process.exit(code ?? (signal ? 1 : 0));
});
