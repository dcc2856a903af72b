import { appendFileSync, mkdirSync } from 'node:fs';
import { after, before } from 'node:test';

import { startBackend, type Backend } from './backend';
import { OUTPUT_DIR } from './browser';
import { laneServer } from './lane';
import { N8n, type N8nOptions, type StartOptions } from './n8n';
import type { CredentialRef } from './workflow';

export interface E2eContext {
	n8n: N8n;
	backend: Backend;
	/** the imported `socialAggregatorApi` credential pointing at the backend (the default) */
	credential: CredentialRef;
}

export interface E2eSuiteOptions extends N8nOptions {
	/** start the server (for triggers, the REST API and the editor); default false */
	start?: boolean;
	/**
	 * an n8n of this file's own even in the lane runner, where a file that starts n8n with no settings of its own (no
	 * `env`, `registry`, `package`, `runtime`, `logLevel`, `keep`) otherwise uses its lane's shared server (`lib/lane.ts`):
	 * for a file that stops and starts n8n, or runs its CLI
	 */
	ownServer?: boolean;
	/** options for the fake service's start() */
	backend?: Record<string, unknown>;
	/**
	 * Called after the credential import, before the server starts: import and publish
	 * trigger workflows here. What it returns is passed to start() (e.g. webhooks to wait for).
	 */
	beforeStart?: (ctx: E2eContext) => Promise<StartOptions | void>;
}

/**
 * Registers node:test hooks that give the tests of one file a fresh n8n with the packed
 * package, a backend (the fake service) and a credential for it; everything is stopped and
 * removed afterwards. The returned object is filled in by the time the tests run.
 */
export function e2eSuite(options: E2eSuiteOptions = {}): E2eContext {
	const ctx = {} as E2eContext;
	before(
		async () => {
			ctx.backend = await startBackend(options.backend);
			const shared = mayShare(options) ? await laneServer() : undefined;
			ctx.n8n = shared ?? (await N8n.create(options));
			ctx.n8n.redactor.add(ctx.backend.apiKey);
			ctx.credential = await ctx.n8n.importCredential({
				name: 'Social Aggregator (e2e)',
				// The seeded owner's key is on the Team plan: 10,000 requests an hour, 1,000 a minute.
				data: { apiKey: ctx.backend.apiKey, baseUrl: ctx.backend.url, requestsPerHour: 10_000, burstPerMinute: 1000 },
			});
			const startOptions = (options.beforeStart ? await options.beforeStart(ctx) : undefined) ?? {};
			if (shared) await shared.waitForActive(startOptions);
			else if (options.start) {
				const { readyMs, webhooksMs } = await ctx.n8n.start(startOptions);
				recordTiming('n8n start until editor ready', readyMs);
				if (webhooksMs !== undefined) recordTiming('n8n start until webhooks and triggers are active', webhooksMs);
			}
		},
		{ timeout: 300_000 },
	);
	after(
		async () => {
			try {
				await ctx.n8n?.dispose();
			} finally {
				// the service outlives n8n: a published trigger's delete() reaches it
				await ctx.backend?.close();
			}
		},
		{ timeout: 60_000 },
	);
	return ctx;
}

/** Whether a file may use its lane's shared n8n: it starts one, and with nothing of its own. */
function mayShare(options: E2eSuiteOptions): boolean {
	const own: Array<keyof N8nOptions> = ['env', 'registry', 'package', 'runtime', 'logLevel', 'keep', 'migratedDatabase', 'label'];
	return options.start === true && options.ownServer !== true && own.every((key) => options[key] === undefined) && process.env.E2E_KEEP !== '1';
}

/** Prints a timing and appends it to test-output/e2e/timings.jsonl. */
export function recordTiming(name: string, ms: number): void {
	process.stderr.write(`[e2e] timing ${name}: ${Math.round(ms)} ms\n`);
	try {
		mkdirSync(OUTPUT_DIR, { recursive: true });
		appendFileSync(`${OUTPUT_DIR}/timings.jsonl`, `${JSON.stringify({ name, ms: Math.round(ms), at: new Date().toISOString() })}\n`);
	} catch {
		// timings are a convenience
	}
}
