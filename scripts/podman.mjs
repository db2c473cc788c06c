// podman for the repository's scripts: its settings (runc, explicit ulimits) from podman/containers.conf,
// the Debian base image made from Debian's packages where no image registry can be reached, and the
// question every podman script asks first: can containers run here at all?
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTAINERS_CONF = fileURLToPath(new URL('./podman/containers.conf', import.meta.url));
/**
 * The name the Containerfile's FROM line uses, the image a user's CI pulls. DEBIAN_IMAGE pins it by digest
 * (`docker.io/library/debian:bookworm-slim@sha256:…`); such an image is pulled, never made here.
 */
export const DEBIAN_IMAGE = process.env.DEBIAN_IMAGE ?? 'docker.io/library/debian:bookworm-slim';
export const CACHE_DIR = process.env.IMAGE_CACHE ?? join(homedir(), '.cache', 'agent-sessions-image');
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

/** `podman ARGS…` with the repository's settings; throws with podman's own words when it fails. */
export function podman(args, options = {}) {
  const result = spawnSync('podman', args, {
    env: { ...process.env, CONTAINERS_CONF },
    encoding: 'utf8',
    stdio: options.inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0 && !options.allowFailure)
    throw new Error(`podman ${args.join(' ')} failed (${result.status}):\n${(result.stderr ?? '').trim()}`);
  return {
    status: result.status,
    stdout: (result.stdout ?? '').trim(),
    stderr: (result.stderr ?? '').trim(),
  };
}

/**
 * `podman ARGS…` without blocking this process: for scripts that serve HTTP (a sandbox, an emulator) while
 * podman works, e.g. a `podman stop` waiting for a container that is still talking to them.
 */
export function podmanAsync(args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      'podman',
      args,
      { env: { ...process.env, CONTAINERS_CONF }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        if (error && !options.allowFailure)
          reject(new Error(`podman ${args.join(' ')} failed (${status}):\n${stderr.trim()}`));
        else resolve({ status, stdout: stdout.trim(), stderr: stderr.trim() });
      },
    );
  });
}

/** The flags every `podman run` and `podman build` of the scripts takes. */
export const RUN_FLAGS = ULIMITS;

/** Why podman can't run containers here, or undefined when it can (it runs one, from the base image). */
export function whyPodmanCannotRun() {
  const version = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0)
    return 'podman is not installed (Debian: apt-get install podman runc catatonit mmdebstrap)';
  try {
    ensureDebianBase();
    const run = podman(['run', '--rm', ...ULIMITS, DEBIAN_IMAGE, 'true'], { allowFailure: true });
    if (run.status !== 0) return `podman cannot start a container here: ${run.stderr.split('\n').at(-1)}`;
  } catch (error) {
    return `podman cannot prepare its base image here: ${error instanceof Error ? error.message : error}`;
  }
  return undefined;
}

const imageExists = (name) => podman(['image', 'exists', name], { allowFailure: true }).status === 0;

/**
 * Debian's slim image under the name a user's CI pulls. Pulled when PODMAN_PULL=1 or when DEBIAN_IMAGE
 * names a digest (only the registry's image has it); otherwise, when it is not in podman's store, made
 * from Debian's packages with mmdebstrap (minbase, without documentation, as the slim image is) once into
 * the cache, then imported.
 */
export function ensureDebianBase() {
  if (imageExists(DEBIAN_IMAGE)) return;
  if (process.env.PODMAN_PULL === '1' || DEBIAN_IMAGE.includes('@')) {
    podman(['pull', DEBIAN_IMAGE], { inherit: true });
    return;
  }
  const tar = join(CACHE_DIR, 'debian-bookworm-slim.tar');
  if (!existsSync(tar)) makeDebianRootfs(tar);
  podman([
    'import',
    '--change',
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    '--change',
    'CMD ["bash"]',
    tar,
    DEBIAN_IMAGE,
  ]);
}

function makeDebianRootfs(tar) {
  const which = spawnSync('mmdebstrap', ['--version'], { encoding: 'utf8' });
  if (which.error) throw new Error('mmdebstrap is not installed (Debian: apt-get install mmdebstrap)');
  mkdirSync(CACHE_DIR, { recursive: true });
  const partial = `${tar}.partial.tar`;
  process.stdout.write(`Making ${DEBIAN_IMAGE} from Debian's packages (mmdebstrap, about a minute)…\n`);
  const exclude = ['man', 'doc', 'locale', 'info'].map((dir) => `--dpkgopt=path-exclude=/usr/share/${dir}/*`);
  const made = spawnSync(
    'mmdebstrap',
    [
      '--variant=minbase',
      '--mode=root',
      '--format=tar',
      ...exclude,
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      '--aptopt=Acquire::Languages "none"',
      // /usr merged by mmdebstrap's own hook, as Debian's images are, rather than by the usrmerge package,
      // which brings perl (50 MB) that nothing in the image uses.
      '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
      '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*',
      'bookworm',
      partial,
      process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (made.status !== 0) throw new Error(`mmdebstrap failed (${made.status})`);
  renameSync(partial, tar);
}
