// `node prune-to-workspace.mjs <workspace>`, in an install's root after `npm ci --omit=dev -w <workspace>`:
// leaves in node_modules only the workspace's own production dependency tree, as `npm ls --omit=dev
// --all --parseable -w <workspace>` lists it, and in packages/ only the workspaces that tree links. `npm ci
// -w` installs every workspace's dependencies (the lockfile is one tree) and `npm prune -w` keeps them
// too, so without this the image would carry the sandbox's and the emulator's. The Containerfile's
// runtime stage runs it; nothing is listed by hand.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const workspace = process.argv[2];
if (!workspace) throw new Error('usage: node prune-to-workspace.mjs <workspace>, e.g. packages/slack-bot');
const root = process.cwd();
const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable', '-w', workspace], {
  encoding: 'utf8',
});
const keep = new Set(
  listed
    .split('\n')
    .filter(Boolean)
    .map((path) => relative(root, path)),
);

const removed = [];
const remove = (path) => {
  rmSync(path, { recursive: true, force: true });
  removed.push(path);
};

/** Removes every package below `dir` (a node_modules folder) that the tree doesn't list. */
function prune(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === '.bin' || entry === '.package-lock.json') remove(path);
    else if (entry.startsWith('@')) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (!keep.has(path)) remove(path);
    else if (existsSync(join(path, 'node_modules'))) prune(join(path, 'node_modules'));
  }
}
prune('node_modules');

// The workspaces still linked from node_modules; the others' folders go.
const linked = new Set();
for (const path of keep) {
  if (path.startsWith('node_modules/') && lstatSync(path).isSymbolicLink())
    linked.add(relative(root, resolve(dirname(path), readlinkSync(path))));
}
for (const entry of readdirSync('packages')) {
  const path = join('packages', entry);
  if (!linked.has(path)) remove(path);
}
process.stdout.write(`kept ${keep.size} packages of ${workspace}'s tree; removed ${removed.length}\n`);
