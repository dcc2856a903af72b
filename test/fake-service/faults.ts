/** Faults injected for the next N requests that match a route. */
import { compilePattern } from './router';
import type { Query } from './util';

export type FaultKind = 'error' | 'delay' | 'drop' | 'malformed' | 'truncated' | 'badEncoding';

export interface FaultSpec {
	/** HTTP method to match; default any. */
	method?: string;
	/**
	 * Path relative to the base URL (no /v1), with `:name` segments and a trailing `*`,
	 * e.g. '/feeds/:id/posts', '/data/*'. Default: every API path.
	 */
	path?: string;
	/** Only requests whose query has these values (e.g. { page: '3' }). */
	query?: Record<string, string>;
	/**
	 * error: answer `status` (429, 500, 503, ...) with the error envelope (429 adds Retry-After);
	 * delay: wait `delayMs`, then answer normally; drop: destroy the socket without an answer;
	 * malformed: answer 200 with a truncated JSON body; truncated: the real answer, its body
	 * cut off half-way and the connection closed (the body ends early); badEncoding: the real
	 * answer labelled `Content-Encoding: gzip` without being compressed.
	 */
	kind: FaultKind;
	status?: number;
	/** Seconds for Retry-After on a 429 (default 1). Set null to omit the header. */
	retryAfter?: number | null;
	/** error: more headers on the answer (a 429's `X-RateLimit-Reset`, say). */
	headers?: Record<string, string>;
	code?: string;
	message?: string;
	delayMs?: number;
	/** How many matching requests get the fault (default 1); 'always' or Infinity for every one. */
	count?: number | 'always';
	/** Let this many matching requests through first (default 0). */
	skip?: number;
	/**
	 * drop / malformed: 'before' (default) answers without running the handler;
	 * 'after' runs the handler (state changes happen) and then drops or garbles the answer.
	 * delay: 'before' (default) waits before the handler runs (and counts the request against the rate limit);
	 * 'after' runs it, then waits before answering, so answers can leave in another order than they were counted.
	 */
	when?: 'before' | 'after';
}

export interface Fault extends Required<Pick<FaultSpec, 'kind'>> {
	id: string;
	spec: FaultSpec;
	remaining: number;
	skipLeft: number;
	hits: number;
	re: RegExp | null;
}

export class Faults {
	private list: Fault[] = [];

	private n = 0;

	add(spec: FaultSpec): string {
		if (!['error', 'delay', 'drop', 'malformed', 'truncated', 'badEncoding'].includes(spec.kind)) throw new Error(`unknown fault kind: ${String(spec.kind)}`);
		const id = `fault_${++this.n}`;
		const count = spec.count === 'always' || spec.count === undefined ? (spec.count === 'always' ? Infinity : 1) : spec.count;
		this.list.push({
			id,
			kind: spec.kind,
			spec,
			remaining: count,
			skipLeft: spec.skip ?? 0,
			hits: 0,
			re: spec.path ? compilePattern(spec.path).re : null,
		});
		return id;
	}

	/** The fault for this request, consuming one use; null when none applies. */
	take(method: string, path: string, query: Query): Fault | null {
		for (const fault of this.list) {
			if (fault.remaining <= 0) continue;
			if (fault.spec.method && fault.spec.method.toUpperCase() !== method) continue;
			if (fault.re && !fault.re.test(path)) continue;
			if (fault.spec.query) {
				const ok = Object.entries(fault.spec.query).every(([k, v]) => {
					const q = query[k];
					return Array.isArray(q) ? q.includes(v) : q === v;
				});
				if (!ok) continue;
			}
			if (fault.skipLeft > 0) {
				fault.skipLeft--;
				continue;
			}
			fault.remaining--;
			fault.hits++;
			return fault;
		}
		return null;
	}

	remove(id: string): boolean {
		const before = this.list.length;
		this.list = this.list.filter((f) => f.id !== id);
		return this.list.length !== before;
	}

	clear(): void {
		this.list = [];
	}

	all(): Array<{ id: string; spec: FaultSpec; remaining: number | 'always'; hits: number }> {
		return this.list.map((f) => ({ id: f.id, spec: f.spec, remaining: f.remaining === Infinity ? 'always' : f.remaining, hits: f.hits }));
	}
}
