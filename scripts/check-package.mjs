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
//   4. checks what n8n's verification asks of the package beyond the scanner: an MIT licence (package.json
//      and LICENSE.md), package.json's repository and homepage naming the same GitHub repository, the release
//      workflow publishing with provenance, and the scanner installed here being n8n's latest (when the
//      registry answers; offline that check is skipped and says so).
// Prints the tarball's files and size. Exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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

/** `owner/name` of a GitHub repository address (git+https, https or ssh), lower case; none for another host. */
function githubRepository(address) {
	const match = /^(?:git\+)?(?:https:\/\/|ssh:\/\/git@|git@|git:\/\/)?(?:www\.)?github\.com[/:]([^/#?]+)\/([^/#?]+?)(?:\.git)?\/?(?:[#?].*)?$/i.exec(
		String(address ?? ''),
	);
	return match ? `${match[1]}/${match[2]}`.toLowerCase() : undefined;
}

/** What n8n's verification asks of the package's source that neither its lint rules nor its scanner check. */
function verificationFailures() {
	const found = [];
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	if (manifest.license !== 'MIT') found.push(`package.json's license is ${JSON.stringify(manifest.license)}, not MIT`);
	const licence = existsSync(path.join(root, 'LICENSE.md')) ? readFileSync(path.join(root, 'LICENSE.md'), 'utf8') : '';
	if (!/^MIT License\b/.test(licence.trim())) found.push('LICENSE.md is missing or is not the MIT licence');
	const repository = githubRepository(typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url);
	const homepage = githubRepository(manifest.homepage);
	if (!repository) found.push(`package.json's repository is not a GitHub repository: ${JSON.stringify(manifest.repository)}`);
	else if (homepage !== repository) found.push(`package.json's homepage (${manifest.homepage}) is not its repository (${repository})`);
	const release = path.join(root, '.github', 'workflows', 'release.yml');
	const workflow = existsSync(release) ? readFileSync(release, 'utf8') : '';
	if (!/npm publish\b[^\n]*--provenance/.test(workflow) || !/id-token:\s*write/.test(workflow)) {
		found.push('.github/workflows/release.yml does not publish with provenance (npm publish --provenance, id-token: write)');
	}
	return found;
}

/** The scanner's latest version on npm, or none when the registry does not answer. */
function latestScanner() {
	try {
		const out = execFileSync('npm', ['view', '@n8n/scan-community-package', 'version', '--json'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
			timeout: 30_000,
		});
		return JSON.parse(out);
	} catch {
		return undefined;
	}
}

const work = mkdtempSync(path.join(tmpdir(), 'n8n-package-check-'));

try {
	const verification = verificationFailures();
	failures.push(...verification);
	if (verification.length === 0) say('licence MIT, repository and homepage one GitHub repository, release with provenance: passed');
	const installed = createRequire(scannerPath)('../package.json').version;
	const latest = latestScanner();
	if (latest === undefined) say(`n8n scanner ${installed}: the registry did not answer, so whether it is the latest is not checked`);
	else if (latest !== installed) failures.push(`n8n's scanner is at ${latest}, this package checks with ${installed}: npm install -D @n8n/scan-community-package@${latest}`);
	else say(`n8n scanner ${installed}: the latest`);

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
