/**
 * B5, the package itself: how long n8n takes to load its nodes and credential, the size
 * of what it installs, and its runtime dependencies.
 *
 * Load time: at start, n8n loads every package under `~/.n8n/nodes/node_modules` with
 * n8n-core's `LazyPackageDirectoryLoader` (falling back to reading every node file when the
 * package ships no `dist/known` index, as community packages do) and then asks each loader
 * for its types. The same two calls are timed here in a fresh Node 24 process per sample,
 * on the package as installed in the benchmark's n8n, with n8n's own n8n-core.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

import type { N8nRuntime } from '../../test/e2e/lib/runtime';
import { median } from './stats';

const LOADER_SCRIPT = `
const [corePath, packageDir] = process.argv.slice(1);
(async () => {
	const core = require(corePath);
	const started = performance.now();
	const loader = new core.LazyPackageDirectoryLoader(packageDir);
	await loader.loadAll();
	await loader.ensureTypesLoaded();
	const ms = performance.now() - started;
	const types = loader.types;
	process.stdout.write(JSON.stringify({ ms, nodes: types.nodes.length, credentials: types.credentials.length, lazy: loader.isLazyLoaded === true }));
})().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

export interface LoadSample {
	ms: number;
	nodes: number;
	credentials: number;
	lazy: boolean;
}

/** Times n8n's loader on the installed package, `samples` times, each in a fresh process. */
export function loadTimes(runtime: N8nRuntime, packageDir: string, samples: number): LoadSample[] {
	const corePath = require.resolve('n8n-core', { paths: [path.join(runtime.n8nHome, 'node_modules', 'n8n')] });
	const result: LoadSample[] = [];
	for (let index = 0; index < samples; index++) {
		const run = spawnSync(runtime.nodeBin, ['-e', LOADER_SCRIPT, corePath, packageDir], {
			encoding: 'utf8',
			// Community packages resolve n8n-workflow from n8n's own node_modules, as in n8n.
			env: { ...process.env, NODE_PATH: path.join(runtime.n8nHome, 'node_modules'), N8N_LOG_LEVEL: 'error' },
			timeout: 60_000,
		});
		if (run.status !== 0) throw new Error(`n8n's loader failed on ${packageDir}: ${run.stderr.slice(-2000)}`);
		result.push(JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as LoadSample);
	}
	return result;
}

export function medianLoadMs(samples: LoadSample[]): number {
	return median(samples.map((sample) => sample.ms));
}

/** Bytes and files under a folder. */
export function folderSize(folder: string): { bytes: number; files: number } {
	let bytes = 0;
	let files = 0;
	const walk = (current: string) => {
		for (const entry of readdirSync(current, { withFileTypes: true })) {
			const full = path.join(current, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.isFile()) {
				bytes += statSync(full).size;
				files++;
			}
		}
	};
	if (existsSync(folder)) walk(folder);
	return { bytes, files };
}

/** The runtime dependencies a package declares, and the packages an install put beside it. */
export function runtimeDependencies(packageDir: string): { declared: string[]; installed: string[] } {
	const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
		dependencies?: Record<string, string>;
	};
	const modules = path.join(packageDir, 'node_modules');
	const installed = existsSync(modules) ? readdirSync(modules).filter((name) => !name.startsWith('.')) : [];
	return { declared: Object.keys(manifest.dependencies ?? {}), installed };
}
