import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import type { FakeService } from '../../fake-service';
import { REPO_ROOT } from './runtime';
import { LOOPBACK } from './util';

/** What the e2e tests need of test/fake-service's `start()` result. */
export interface FakeServiceLike {
	url: string;
	control: unknown;
	close(): Promise<void>;
	[key: string]: unknown;
}

/** The service the nodes talk to in a test: the fake service, or a stand-in while it is missing. */
export interface Backend {
	/** the {base_url}, ending in /v1 */
	url: string;
	/** a ready API key (register it with the instance's redactor; never print it) */
	apiKey: string;
	/** the fake service (its control API steers it), when test/fake-service is there */
	fake?: FakeService;
	kind: 'fake-service' | 'stand-in';
	close(): Promise<void>;
}

interface FakeServiceModule {
	start(options: Record<string, unknown>): Promise<FakeServiceLike>;
	[key: string]: unknown;
}

const FAKE_DIR = path.join(REPO_ROOT, 'test', 'fake-service');

function loadFakeService(): FakeServiceModule | undefined {
	for (const file of ['index.ts', 'server.ts']) {
		const candidate = path.join(FAKE_DIR, file);
		if (!existsSync(candidate)) continue;
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(candidate) as Partial<FakeServiceModule>;
		if (typeof mod.start === 'function') return mod as FakeServiceModule;
	}
	return undefined;
}

/** True when test/fake-service exports `start()`. */
export function fakeServiceAvailable(): boolean {
	try {
		return loadFakeService() !== undefined;
	} catch {
		return false;
	}
}

/**
 * A ready API key of the fake service. The fake's CLI prints one; the library is expected to
 * expose it as `apiKey` on the started service, `control.apiKey`, or an exported constant.
 */
function findApiKey(mod: FakeServiceModule, fake: FakeServiceLike): string {
	const control = fake.control as Record<string, unknown> | undefined;
	const candidates: unknown[] = [
		(control?.keys as Record<string, unknown> | undefined)?.owner,
		fake.apiKey,
		control?.apiKey,
		mod.DEMO_API_KEY,
		mod.API_KEY,
		(mod.KEYS as Record<string, unknown> | undefined)?.owner,
		(mod.keys as Record<string, unknown> | undefined)?.owner,
	];
	const key = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate !== '');
	if (!key) throw new Error('test/e2e/lib/backend.ts: the fake service exposes no API key that this adapter knows of');
	return key;
}

/**
 * Starts the fake service (allowing http webhooks to 127.0.0.1), else the stand-in.
 * E2E_BACKEND=stand-in forces the stand-in; E2E_BACKEND=fake requires the fake service.
 */
export async function startBackend(options: Record<string, unknown> = {}): Promise<Backend> {
	const choice = process.env.E2E_BACKEND ?? 'auto';
	const mod = choice === 'stand-in' ? undefined : loadFakeService();
	if (!mod && choice === 'fake') throw new Error('E2E_BACKEND=fake but test/fake-service exports no start()');
	if (mod) {
		const fake = await mod.start({ port: 0, allowHttpWebhooks: true, ...options });
		return {
			url: fake.url,
			apiKey: findApiKey(mod, fake),
			fake: fake as unknown as FakeService,
			kind: 'fake-service',
			close: async () => await fake.close(),
		};
	}
	return await startStandIn();
}

/**
 * While test/fake-service is being written: just `GET /v1/account` with Bearer auth and the
 * error envelope of CONTRIBUTING.md, enough for the credential's own test.
 */
export async function startStandIn(): Promise<Backend> {
	const apiKey = `sag_test_${randomBytes(16).toString('hex')}`;
	const server = createServer((req, res) => {
		const send = (status: number, body: unknown) => {
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
		if (req.headers.authorization !== `Bearer ${apiKey}`) {
			send(401, { error: { code: 'unauthorized', message: 'Invalid API key', details: {} } });
			return;
		}
		if (req.method === 'GET' && url.pathname === '/v1/account') {
			send(200, {
				data: { id: 1, name: 'E2E Account', email: 'owner@e2e.test', plan: 'pro', plan_display_name: 'Pro', role: 'owner' },
			});
			return;
		}
		send(404, { error: { code: 'not_found', message: 'Not found', details: {} } });
	});
	await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://${LOOPBACK}:${port}/v1`,
		apiKey,
		kind: 'stand-in',
		close: async () =>
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
