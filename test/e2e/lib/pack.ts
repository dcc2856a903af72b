import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { PACKAGE_NAME, REPO_ROOT } from './runtime';
import { registerCleanup, runCommand, tail } from './util';

export interface PackedPackage {
	tarball: string;
	name: string;
	version: string;
}

let packed: PackedPackage | undefined;

/**
 * The package as npm would publish it: `npm pack` into a temp folder (its prepack script builds).
 * Reuses E2E_PACKAGE_TARBALL when set (scripts/e2e.sh packs once for all test files),
 * and packs at most once per process.
 */
export async function packPackage(): Promise<PackedPackage> {
	if (packed && existsSync(packed.tarball)) return packed;
	const fromEnv = process.env.E2E_PACKAGE_TARBALL;
	if (fromEnv !== undefined && fromEnv !== '') {
		if (!existsSync(fromEnv)) throw new Error(`E2E_PACKAGE_TARBALL=${fromEnv} does not exist`);
		const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
		packed = { tarball: path.resolve(fromEnv), name: PACKAGE_NAME, version };
		return packed;
	}
	const destination = mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-pack-'));
	registerCleanup(() => rmSync(destination, { recursive: true, force: true }));
	const result = await runCommand('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: REPO_ROOT,
		timeoutMs: 300_000,
	});
	if (result.code !== 0) throw new Error(`npm pack failed:\n${tail(result.stdout + result.stderr)}`);
	// the build's output (prepack) comes first; npm's JSON is the last thing printed
	const [info] = JSON.parse(result.stdout.slice(result.stdout.search(/^\[\s*$/m))) as Array<{
		name: string;
		version: string;
		filename: string;
	}>;
	packed = { tarball: path.join(destination, info.filename), name: info.name, version: info.version };
	return packed;
}

/**
 * Installs a packed tarball into `<userFolder>/.n8n/nodes` exactly as n8n's own community
 * package installer does (n8n 2.41 CommunityPackagesService.downloadPackage): extract into
 * node_modules/<name>, drop dev/peer/optional dependencies from its package.json, install
 * its runtime dependencies in place, and record it in nodes/package.json.
 * n8n scans nodes/node_modules at start and registers the nodes as `<name>.<nodeName>`.
 */
export async function installCommunityPackage(userFolder: string, pkg: PackedPackage): Promise<string> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', pkg.name);
	mkdirSync(packageDir, { recursive: true });
	const untar = await runCommand('tar', ['-xzf', pkg.tarball, '-C', packageDir, '--strip-components=1']);
	if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);

	const packageJsonPath = path.join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...packageJson } = JSON.parse(
		readFileSync(packageJsonPath, 'utf8'),
	) as Record<string, unknown>;
	void devDependencies;
	void peerDependencies;
	void optionalDependencies;
	checkEntries(packageDir, packageJson);
	writeFileSync(packageJsonPath, JSON.stringify(packageJson, null, 2));

	const install = await runCommand(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: packageDir, timeoutMs: 180_000 },
	);
	if (install.code !== 0) throw new Error(`npm install in ${packageDir} failed:\n${tail(install.stdout + install.stderr)}`);

	const ledgerPath = path.join(nodesDir, 'package.json');
	const ledger = existsSync(ledgerPath)
		? (JSON.parse(readFileSync(ledgerPath, 'utf8')) as { dependencies: Record<string, string> })
		: { name: 'installed-nodes', private: true, dependencies: {} as Record<string, string> };
	ledger.dependencies[pkg.name] = pkg.version;
	writeFileSync(ledgerPath, JSON.stringify(ledger, null, 2));
	return packageDir;
}

/**
 * Every file the package's `n8n` section lists must be in the tarball, or n8n refuses to load
 * the whole package. While a node is still being written (its source file, e.g.
 * nodes/X/X.node.ts, does not exist yet) its entry is dropped with a warning; an entry whose
 * source exists but is not in the tarball is a packaging bug and fails.
 */
function checkEntries(packageDir: string, packageJson: Record<string, unknown>): void {
	const n8n = packageJson.n8n as { nodes?: string[]; credentials?: string[] } | undefined;
	if (!n8n) throw new Error('the packed package.json has no "n8n" section');
	for (const key of ['nodes', 'credentials'] as const) {
		const entries = n8n[key] ?? [];
		n8n[key] = entries.filter((entry) => {
			if (existsSync(path.join(packageDir, entry))) return true;
			const source = path.join(REPO_ROOT, entry.replace(/^dist[\\/]/, '').replace(/\.js$/, '.ts'));
			if (existsSync(source)) {
				throw new Error(`the packed package lacks ${entry} although ${source} exists: check the build`);
			}
			process.stderr.write(`[e2e] warning: ${entry} is not written yet; left out of this install\n`);
			return false;
		});
	}
}
