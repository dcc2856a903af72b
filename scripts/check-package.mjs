#!/usr/bin/env node
// The package as n8n verifies it (`npm run check:package`):
//   1. packs it as `npm publish` would (`npm pack` builds it first: the prepack script), unless
//      PACKAGE_TARBALL names a tarball already packed;
//   2. checks the tarball: every file package.json's "n8n" section lists is in it, no build
//      leftovers (tsbuildinfo, source maps, declarations, TypeScript sources), and beside dist/
//      only package.json, README.md, LICENSE.md and CHANGELOG.md;
//   3. runs n8n's own security scanner (@n8n/scan-community-package, the check behind n8n's
//      verification) through its exported analysis, as n8n runs it on a published package: on the
//      source (package.json, nodes/, credentials/) and on the tarball's JavaScript and package.json.
//      Its command line wants a name published on npm; the analysis is the same.
// Prints the tarball's files and size. Exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const scannerPath = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
// the scanner makes a temp folder when loaded (for its download mode): remove it at exit
createRequire(scannerPath)('tmp').setGracefulCleanup();
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(scannerPath);

const say = (line = '') => process.stdout.write(`${line}\n`);
const failures = [];
const work = mkdtempSync(path.join(tmpdir(), 'n8n-package-check-'));

try {
	let tarball = process.env.PACKAGE_TARBALL;
	if (!tarball) {
		const started = Date.now();
		const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		// the build's own output comes first (prepack); npm's JSON is the last thing printed
		const [info] = JSON.parse(out.slice(out.search(/^\[\s*$/m)));
		tarball = path.join(work, info.filename);
		say(`packed ${info.filename} (build included) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	}

	const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
		.split('\n')
		.filter(Boolean)
		.map((file) => file.replace(/^package\//, ''));
	const unpacked = path.join(work, 'package');
	execFileSync('tar', ['-xzf', tarball, '-C', work]);
	let unpackedBytes = 0;
	for (const file of files) unpackedBytes += statSync(path.join(unpacked, file)).size;
	say(`tarball: ${files.length} files, ${(statSync(tarball).size / 1024).toFixed(1)} kB packed, ${(unpackedBytes / 1024).toFixed(1)} kB unpacked`);
	for (const file of files.sort()) say(`  ${file}`);

	const manifest = JSON.parse(readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
	for (const entry of [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])]) {
		if (!files.includes(entry)) failures.push(`the tarball lacks ${entry}, which package.json's "n8n" section lists`);
	}
	if ((manifest.n8n?.nodes ?? []).length === 0) failures.push('package.json lists no nodes');
	const leftovers = files.filter((file) => /(\.tsbuildinfo|\.map|\.d\.ts|(?<!\.d)\.ts)$/.test(file));
	if (leftovers.length > 0) failures.push(`build leftovers in the tarball: ${leftovers.join(', ')}`);
	if (manifest.main !== undefined && !files.includes(manifest.main)) failures.push(`"main" points at ${manifest.main}, which is not in the tarball`);
	if (Object.keys(manifest.dependencies ?? {}).length > 0) failures.push('the package has runtime dependencies');
	// Beside the build, exactly these documents: what users read on npm, the licence and what changed.
	const documents = ['CHANGELOG.md', 'LICENSE.md', 'README.md', 'package.json'];
	const beside = files.filter((file) => !file.startsWith('dist/')).sort();
	for (const file of documents.filter((doc) => !beside.includes(doc))) failures.push(`the tarball lacks ${file}`);
	const unexpected = beside.filter((file) => !documents.includes(file));
	if (unexpected.length > 0) failures.push(`files outside dist/ that the package should not ship: ${unexpected.join(', ')}`);

	const legs = [
		['source (package.json, nodes/, credentials/)', root, SOURCE_FILE_PATTERNS],
		['tarball (its JavaScript and package.json)', unpacked, ['**/*.js', 'package.json']],
	];
	for (const [label, dir, patterns] of legs) {
		const started = Date.now();
		const result = await analyzePackage(dir, patterns);
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		if (result.passed) {
			say(`n8n scanner on the ${label}: passed (${seconds} s)`);
		} else {
			failures.push(`n8n scanner on the ${label}: ${result.message}`);
			if (result.details) say(result.details);
		}
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
	for (const failure of failures) say(`FAIL ${failure}`);
	process.exit(1);
}
say('package check passed');
