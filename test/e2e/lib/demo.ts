import { readdirSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

import { startBackend, type Backend } from './backend';
import { N8n } from './n8n';
import { packPackage, type PackedPackage } from './pack';
import { LocalRegistry } from './registry';
import type { Owner } from './rest';
import { PACKAGE_NAME, REPO_ROOT, resolveRuntime } from './runtime';
import { LOOPBACK, randomId } from './util';
import { loadWorkflow, NODE_TYPES, type CredentialRef } from './workflow';

/**
 * The local demo behind `npm start` (scripts/start.sh): the fake service with demo data, and a
 * real n8n with the packed package, a credential for the service, the example workflows (the
 * ones started by the service's webhooks published) and an owner account, all on 127.0.0.1.
 * The end-to-end test of the examples drives the same function through scripts/start.sh.
 */
export interface DemoOptions {
	/** n8n's port: default 5678, or a free one when that is taken; 0 for any free port */
	n8nPort?: number;
	/** the service's port: default 4010, or a free one when that is taken; 0 for any free port */
	servicePort?: number;
	/** the packed package (default: packPackage(), which builds and packs) */
	package?: PackedPackage;
	/** folder of example workflow files (default: examples/) */
	examplesDir?: string;
	/** n8n's log level (its log goes to <userFolder>/n8n-start.log); default info */
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	/** progress lines (default: nothing) */
	log?: (line: string) => void;
}

export interface DemoWorkflow {
	id: string;
	name: string;
	file: string;
	/** published: started by the service's webhooks (the Social Aggregator Trigger) */
	active: boolean;
}

export interface Demo {
	n8n: N8n;
	backend: Backend;
	/** the local npm registry n8n installed the package from */
	registry: LocalRegistry;
	owner: Owner;
	credential: CredentialRef;
	workflows: DemoWorkflow[];
	editorUrl: string;
	/** the service's origin; its control API is under /_control */
	serviceOrigin: string;
	/** stops n8n (gracefully, then by force) and the service, and removes n8n's folder */
	stop(): Promise<void>;
}

export const DEMO_CREDENTIAL_NAME = 'Social Aggregator (demo)';
export const DEFAULT_DEMO_N8N_PORT = 5678;
export const DEFAULT_DEMO_SERVICE_PORT = 4010;

/** The demo's owner: a fixed email, a new password per start (n8n's rules: a digit and a capital). */
export function demoOwner(): Owner {
	return { email: 'demo@example.com', password: `Demo-${randomId(12)}-7`, firstName: 'Demo', lastName: 'User' };
}

/** True when nothing listens on 127.0.0.1:port. */
export async function portIsFree(port: number): Promise<boolean> {
	return await new Promise<boolean>((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, LOOPBACK, () => server.close(() => resolve(true)));
	});
}

/** `wanted` if free (0: let the OS choose), else undefined so that a free port is used. */
async function choosePort(wanted: number, what: string, log: (line: string) => void): Promise<number | undefined> {
	if (wanted === 0) return undefined;
	if (await portIsFree(wanted)) return wanted;
	log(`port ${wanted} is taken; ${what} uses a free port instead`);
	return undefined;
}

/** The example workflow files, sorted. */
export function exampleFiles(dir = path.join(REPO_ROOT, 'examples')): string[] {
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => path.join(dir, file));
}

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
	const log = options.log ?? (() => undefined);
	const servicePort = await choosePort(options.servicePort ?? DEFAULT_DEMO_SERVICE_PORT, 'the service', log);
	const n8nPort = await choosePort(options.n8nPort ?? DEFAULT_DEMO_N8N_PORT, 'n8n', log);

	log('starting the stand-in service with demo data');
	const backend = await startBackend({
		port: servicePort ?? 0,
		demo: true,
		autoSync: true,
		clock: { start: Date.now() },
		// the retry pace of a real service, not the tests' milliseconds
		webhooks: { retryDelaysMs: [5_000, 30_000, 120_000, 600_000, 1_800_000] },
	});
	let n8n: N8n | undefined;
	let registry: LocalRegistry | undefined;
	try {
		if (!backend.fake) throw new Error('the demo needs test/fake-service');
		const runtime = resolveRuntime();
		const pkg = options.package ?? (await packPackage());
		log('publishing the packed package to a local npm registry');
		registry = await LocalRegistry.start(runtime);
		await registry.publish(pkg.tarball);
		n8n = await N8n.create({
			runtime,
			package: false,
			registry,
			logLevel: options.logLevel ?? 'info',
			label: 'n8n-social-aggregator-demo',
		});
		n8n.redactor.add(backend.apiKey);

		log('starting n8n');
		await n8n.start({ port: n8nPort, setupOwner: false });
		const owner = await n8n.setupOwner(demoOwner());
		// as a user gets it: Settings → Community Nodes → Install, from the local registry
		log(`installing ${PACKAGE_NAME} with n8n's community-package installer`);
		await n8n.installPackage(PACKAGE_NAME, pkg.version);
		// then, as in the editor: the credential and the workflows saved (through n8n's REST API), the triggers published
		const credential = await n8n.importCredential({
			name: DEMO_CREDENTIAL_NAME,
			data: { apiKey: backend.apiKey, baseUrl: backend.url },
		});
		log('importing the example workflows');
		const files = exampleFiles(options.examplesDir);
		const specs = files.map((file) => loadWorkflow(file));
		const ids = await n8n.importWorkflows(specs);
		const workflows: DemoWorkflow[] = specs.map((spec, index) => ({
			id: ids[index],
			name: spec.name,
			file: path.relative(REPO_ROOT, files[index]),
			active: spec.nodes.some((node) => node.type === NODE_TYPES.trigger),
		}));
		// publish() waits until the triggers are active
		for (const workflow of workflows.filter((w) => w.active)) await n8n.publish(workflow.id);

		const started = n8n;
		const startedRegistry = registry;
		let stopping: Promise<void> | undefined;
		return {
			n8n: started,
			backend,
			registry: startedRegistry,
			owner,
			credential,
			workflows,
			editorUrl: `${started.baseUrl}/`,
			serviceOrigin: backend.fake.origin,
			stop: async () => {
				stopping ??= (async () => {
					try {
						await started.dispose();
					} finally {
						await backend.close();
						await startedRegistry.stop();
					}
				})();
				await stopping;
			},
		};
	} catch (error) {
		await n8n?.dispose().catch(() => undefined);
		await backend.close().catch(() => undefined);
		await registry?.stop().catch(() => undefined);
		throw error;
	}
}
