/**
 * The benchmark's n8n: the real n8n of the end-to-end setup (test/e2e/lib), with the packed
 * package installed as a community package, the fake service as backend, and every
 * benchmark workflow published before `n8n start`. Workflows are started through their
 * production webhooks (a warm n8n, as in production) and timed from n8n's own execution
 * records (startedAt → stoppedAt), never from the process.
 */
import { cpSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import { startBackend, type Backend } from '../../test/e2e/lib/backend';
import { N8n, type ExecutionSummary } from '../../test/e2e/lib/n8n';
import { packPackage, type PackedPackage } from '../../test/e2e/lib/pack';
import { webhookPath, type CredentialRef, type WorkflowSpec } from '../../test/e2e/lib/workflow';
import type { FakeService } from '../../test/fake-service';

export interface BenchN8n {
	n8n: N8n;
	backend: Backend;
	fake: FakeService;
	/** the package's credential (the default of our nodes) */
	ours: CredentialRef;
	/** an HTTP Bearer credential with the same key, for n8n's HTTP Request node */
	bearer: CredentialRef;
	pkg: PackedPackage;
	/** ms from `n8n start` until the editor answered, and until every benchmark webhook answered */
	startMs: { ready: number; webhooks?: number };
	/** Stops n8n and starts it again (a fresh process, same database): resolves when every benchmark webhook answers. */
	restart(): Promise<{ ready: number; webhooks?: number }>;
	close(): Promise<void>;
}

/** The credentials a case's workflows may name besides the package's default one. */
export interface BenchRefs {
	bearer: CredentialRef;
	baseUrl: string;
	/** the package's credential for the key of 30 requests an hour that B3B shrinks to 20 s (the stand-in tells it in its headers) */
	shrunkHour?: CredentialRef;
}

/** A workflow to publish, and the production webhooks to wait for before measuring. */
export interface Published {
	spec: WorkflowSpec;
	/** production webhook paths of the workflow (`path` of a Webhook node, `<webhookId>/webhook` of our trigger) */
	webhooks: string[];
}

/**
 * Starts the fake service (`prepare` seeds it and returns the workflows, which may name the
 * seeded ids), n8n with the package, both credentials, and publishes the workflows.
 */
export async function startBench(
	prepare: (fake: FakeService, refs: BenchRefs) => Published[],
	{
		env = {},
		pkg: chosen,
		label = 'n8n-bench',
		extraPackages = [],
	}: { env?: Record<string, string>; pkg?: PackedPackage; label?: string; extraPackages?: string[] } = {},
): Promise<BenchN8n & { ids: Map<string, string> }> {
	const backend = await startBackend({ allowHttpWebhooks: true });
	if (!backend.fake) throw new Error('the benchmark needs test/fake-service');
	const fake = backend.fake;
	let n8n: N8n | undefined;
	try {
		// the package of this tree (scripts/bench.sh packs it), or another build (BENCH_BASELINE)
		const pkg = chosen ?? (await packPackage());
		n8n = await N8n.create({
			package: pkg,
			logLevel: 'info',
			label,
			env: {
				// Every execution of a run is counted and timed from its record: keep them all.
				EXECUTIONS_DATA_PRUNE: 'false',
				...env,
			},
		});
		n8n.redactor.add(backend.apiKey);
		const ours = await n8n.importCredential({
			name: 'Social Aggregator (bench)',
			// The seeded owner's key is on the Team plan: 10,000 requests an hour, 1,000 a minute (B1 to B3 send more than 300).
			data: { apiKey: backend.apiKey, baseUrl: backend.url, requestsPerHour: 10_000, burstPerMinute: 1000 },
		});
		const bearer = await n8n.importCredential({
			name: 'Bearer (bench)',
			type: 'httpBearerAuth',
			data: { token: backend.apiKey },
		});
		// Folders of packages without dependencies (the benchmark's own nodes), loaded as community packages.
		for (const folder of extraPackages) {
			const name = (JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { name: string }).name;
			cpSync(folder, path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', name), { recursive: true });
		}
		// B3B's key: 30 requests an hour, which the case shrinks to 20 s at the stand-in; its X-RateLimit-* headers tell the node.
		const shrunkHour = await n8n.importCredential({
			name: 'Social Aggregator, 30 requests an hour (bench)',
			data: { apiKey: backend.apiKey, baseUrl: backend.url, requestsPerHour: 30, burstPerMinute: 10 },
		});
		const published = prepare(fake, { bearer, baseUrl: backend.url, shrunkHour });
		const workflowIds = await n8n.importWorkflows(published.map((p) => p.spec));
		const ids = new Map<string, string>();
		published.forEach((p, index) => ids.set(p.spec.name, workflowIds[index]));
		for (const id of workflowIds) await n8n.publish(id);
		const startOptions = { webhooks: published.flatMap((p) => p.webhooks), published: workflowIds };
		const { readyMs, webhooksMs } = await n8n.start(startOptions);
		const started = n8n;
		return {
			n8n: started,
			backend,
			fake,
			ours,
			bearer,
			pkg,
			ids,
			startMs: { ready: readyMs, webhooks: webhooksMs },
			restart: async () => {
				await started.stop();
				const again = await started.start(startOptions);
				return { ready: again.readyMs, webhooks: again.webhooksMs };
			},
			close: async () => {
				await started.dispose();
				await backend.close();
			},
		};
	} catch (error) {
		await n8n?.dispose();
		await backend.close();
		throw error;
	}
}

/** The production webhook path of a trigger node of this package. */
export function triggerPath(spec: WorkflowSpec, nodeName: string): string {
	return webhookPath(spec, nodeName);
}

/** Executions of a workflow (newest first), at most `limit`, with n8n's total count. */
export async function executionPage(
	n8n: N8n,
	workflowId: string,
	limit = 100,
): Promise<{ count: number; results: ExecutionSummary[] }> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	return await n8n.rest<{ count: number; results: ExecutionSummary[] }>(
		'GET',
		`/rest/executions?filter=${filter}&limit=${limit}`,
	);
}

export interface TimedRun {
	executionId: string;
	status: string;
	/** n8n's execution record: stoppedAt − startedAt */
	ms: number;
}

/**
 * Starts a workflow through its Webhook node (responding when the last node has finished)
 * and reads n8n's record of that execution.
 */
export async function runThroughWebhook(
	n8n: N8n,
	workflowId: string,
	path: string,
	body: unknown = {},
	{ waitMs = 10_000 }: { waitMs?: number } = {},
): Promise<TimedRun> {
	const before = await executionPage(n8n, workflowId, 1);
	const response = await fetch(n8n.webhookUrl(path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	await response.arrayBuffer();
	for (let attempt = 0; attempt < waitMs / 50; attempt++) {
		const page = await executionPage(n8n, workflowId, 1);
		const newest = page.results[0];
		if (page.count > before.count && newest && !['new', 'running', 'waiting'].includes(newest.status) && newest.stoppedAt) {
			return {
				executionId: newest.id,
				status: newest.status,
				ms: Date.parse(newest.stoppedAt) - Date.parse(newest.startedAt),
			};
		}
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error(`no finished execution of workflow ${workflowId} after calling ${path} (answer ${response.status})`);
}
