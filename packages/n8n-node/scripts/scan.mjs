// The static analysis n8n runs before it verifies a community package (@n8n/scan-community-package), as
// it runs it: `analyzePackage` on the packed tarball with its default patterns, then on the package's
// sources with the scanner's own SOURCE_FILE_PATTERNS. The scanner lints with `allowInlineConfig: false`,
// so no disable comment can hide a finding. Run after the build (`npm run scan` builds first).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const packageDir = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'n8n-scan-'));
let failed = 0;
try {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: packageDir, encoding: 'utf8' });
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  const unpacked = join(work, 'package');
  mkdirSync(unpacked);
  execFileSync('tar', ['xzf', join(work, info.filename), '-C', unpacked, '--strip-components=1']);
  const legs = [
    { what: `the tarball ${info.filename} (${info.files.length} files)`, dir: unpacked, patterns: undefined },
    { what: `the sources (${SOURCE_FILE_PATTERNS.join(', ')})`, dir: packageDir, patterns: SOURCE_FILE_PATTERNS },
  ];
  for (const { what, dir, patterns } of legs) {
    const result = await analyzePackage(dir, patterns);
    process.stdout.write(`${result.passed ? '✓' : '✗'} ${what}${result.passed ? '' : `: ${result.message}`}\n`);
    if (!result.passed) {
      failed += 1;
      if (result.details) process.stdout.write(`${result.details}\n`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed > 0) {
  process.stdout.write(`\nn8n's scanner would refuse the package (${failed} of 2 scans failed)\n`);
  process.exit(1);
}
process.stdout.write("\nn8n's scanner passes the package and its sources\n");
