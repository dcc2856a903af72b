/** Shared by the contract tests: start a fake and call it over real HTTP. */
import { start, type FakeService } from './server';
import type { StartOptions } from './service';

export interface Res<T = any> {
	status: number;
	headers: Headers;
	/** Parsed JSON (undefined when the body is empty). */
	body: T;
	raw: string;
}

export interface CallOptions {
	key?: string | null;
	body?: unknown;
	rawBody?: string;
	query?: Record<string, string | number | undefined>;
	headers?: Record<string, string>;
}

export class Client {
	constructor(
		readonly base: string,
		readonly defaultKey: string | null,
	) {}

	async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Res<T>> {
		const url = new URL(this.base + path);
		for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
		const headers: Record<string, string> = { ...(options.headers ?? {}) };
		const key = options.key === undefined ? this.defaultKey : options.key;
		if (key) headers.Authorization = `Bearer ${key}`;
		let body: string | undefined;
		if (options.rawBody !== undefined) body = options.rawBody;
		else if (options.body !== undefined) body = JSON.stringify(options.body);
		if (body !== undefined) headers['Content-Type'] = 'application/json';
		const r = await fetch(url, { method, headers, body });
		const raw = await r.text();
		let parsed: unknown;
		try {
			parsed = raw ? JSON.parse(raw) : undefined;
		} catch {
			parsed = undefined;
		}
		return { status: r.status, headers: r.headers, body: parsed as T, raw };
	}

	get<T = any>(path: string, options?: CallOptions) {
		return this.call<T>('GET', path, options);
	}

	post<T = any>(path: string, body?: unknown, options: CallOptions = {}) {
		return this.call<T>('POST', path, { ...options, body });
	}

	patch<T = any>(path: string, body?: unknown, options: CallOptions = {}) {
		return this.call<T>('PATCH', path, { ...options, body });
	}

	put<T = any>(path: string, body?: unknown, options: CallOptions = {}) {
		return this.call<T>('PUT', path, { ...options, body });
	}

	delete<T = any>(path: string, options?: CallOptions) {
		return this.call<T>('DELETE', path, options);
	}

	as(key: string | null): Client {
		return new Client(this.base, key);
	}
}

export interface Harness {
	fake: FakeService;
	api: Client;
	/** http://127.0.0.1:<port> (web pages under /web, control under /_control) */
	origin: Client;
}

/** Starts a fake for one test file; call `await h.fake.close()` in afterAll. */
export async function startHarness(options: StartOptions = {}): Promise<Harness> {
	const fake = await start({ allowHttpWebhooks: true, ...options });
	return { fake, api: new Client(fake.url, fake.control.keys.owner), origin: new Client(fake.origin, null) };
}

/**
 * A fake for one test file: started before its tests, reset before each of
 * them, closed after them. The harness returned is filled in when the fake has
 * started, so use it inside tests and hooks only.
 */
export function useHarness(options: StartOptions = {}): Harness {
	const h = {} as Harness;
	beforeAll(async () => {
		Object.assign(h, await startHarness(options));
	});
	afterAll(async () => {
		await h.fake.close();
	});
	beforeEach(() => h.fake.control.reset());
	return h;
}

/** Asserts SPEC.md's error envelope and returns error. */
export function expectError(res: Res, status: number, code: string): any {
	expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
	expect(typeof res.body.error.message).toBe('string');
	expect(res.body.error.message.length).toBeGreaterThan(0);
	expect(res.body.error.details).toEqual(expect.any(Object));
	return res.body.error;
}

export const HOUR = 3_600_000;
export const MINUTE = 60_000;
export const DAY = 86_400_000;
