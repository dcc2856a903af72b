/**
 * BENCH_BASELINE=<git ref>: the package as another commit builds it, to run B1 to B3 against
 * in the same bench run. The commit's tree is exported with `git archive` into a temp folder
 * (the work tree and its branches are left alone), its dependencies are this tree's
 * node_modules when its package-lock.json is the same (else `npm ci --prefer-offline`, from
 * npm's cache where it can), and `npm pack` builds and packs it (its own prepack script).
 * The benchmark installs it into a second n8n: both packages have the same name and node
 * types, so one n8n cannot hold both.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { PackedPackage } from '../../test/e2e/lib/pack';
import { REPO_ROOT } from '../../test/e2e/lib/runtime';
import { registerCleanup, runCommand, tail } from '../../test/e2e/lib/util';

export interface BaselinePackage extends PackedPackage {
	ref: string;
	commit: string;
	/** `<ref> (<short commit>)`, or the short commit when that is the ref */
	label: string;
	/** how its dependencies were had */
	dependencies: string;
}

async function run(command: string, args: string[], cwd: string, timeoutMs = 600_000): Promise<string> {
	const result = await runCommand(command, args, { cwd, timeoutMs });
	if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${tail(result.stdout + result.stderr)}`);
	return result.stdout;
}

export async function packBaseline(ref: string, progress: (message: string) => void): Promise<BaselinePackage> {
	const commit = (await run('git', ['rev-parse', '--verify', `${ref}^{commit}`], REPO_ROOT)).trim();
	const short = commit.slice(0, 7);
	const label = ref.startsWith(short) || short.startsWith(ref) ? short : `${ref} (${short})`;
	const folder = mkdtempSync(path.join(os.tmpdir(), 'n8n-bench-baseline-'));
	registerCleanup(() => rmSync(folder, { recursive: true, force: true }));
	const source = path.join(folder, 'src');
	const packs = path.join(folder, 'pack');
	mkdirSync(source);
	mkdirSync(packs);

	const archive = path.join(folder, 'src.tar');
	await run('git', ['archive', '--format=tar', '-o', archive, commit], REPO_ROOT);
	await run('tar', ['-xf', archive, '-C', source], folder);

	const lock = (root: string) => (existsSync(path.join(root, 'package-lock.json')) ? readFileSync(path.join(root, 'package-lock.json'), 'utf8') : undefined);
	let dependencies: string;
	if (lock(source) !== undefined && lock(source) === lock(REPO_ROOT) && existsSync(path.join(REPO_ROOT, 'node_modules'))) {
		symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
		dependencies = "this tree's node_modules (same package-lock.json)";
	} else {
		progress(`baseline ${label}: its package-lock.json differs from this tree's: npm ci --prefer-offline`);
		await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], source);
		dependencies = 'npm ci --prefer-offline';
	}

	progress(`baseline ${label}: npm pack (builds it)`);
	const output = await run('npm', ['pack', '--json', '--pack-destination', packs], source);
	// the build's output (prepack) comes first; npm's JSON is the last thing printed
	const [info] = JSON.parse(output.slice(output.search(/^\[\s*$/m))) as Array<{ name: string; version: string; filename: string }>;
	return { tarball: path.join(packs, info.filename), name: info.name, version: info.version, ref, commit, label, dependencies };
}
