/**
 * Answers in another shape: for the next N successful requests that match a route, the
 * JSON body the handler built is replaced by a given one. Where SPEC.md does not show a
 * shape, the live service may answer differently from this fake; tests use this to
 * answer those other shapes. The handler still runs first, so a 401, 404 or 429 is
 * answered as usual and does not use the answer up.
 */
import { compilePattern, type Reply } from './router';
import type { Query } from './util';

export interface AnswerSpec {
	/** HTTP method to match; default GET. */
	method?: string;
	/** Path relative to the base URL (no /v1), with `:name` segments and a trailing `*`. */
	path: string;
	/** Only requests whose query has these values (e.g. { page: '2' }). */
	query?: Record<string, string>;
	/** The JSON body answered instead (any JSON value, `null` included). */
	body?: unknown;
	/** A body sent as this exact text instead of JSON (`''` for an empty body). */
	raw?: string;
	/** Another success status for the answer (e.g. 204). */
	status?: number;
	/** How many matching successful requests get it (default 1); 'always' or Infinity for every one. */
	count?: number | 'always';
}

interface Answer {
	id: string;
	spec: AnswerSpec;
	remaining: number;
	hits: number;
	re: RegExp;
}

export class Answers {
	private list: Answer[] = [];

	private n = 0;

	add(spec: AnswerSpec): string {
		if (typeof spec.path !== 'string' || !spec.path) throw new Error('an answer needs a path');
		if (!('body' in spec) && spec.raw === undefined) throw new Error('an answer needs a body or a raw text');
		const id = `answer_${++this.n}`;
		const remaining = spec.count === 'always' ? Infinity : spec.count ?? 1;
		this.list.push({ id, spec, remaining, hits: 0, re: compilePattern(spec.path).re });
		return id;
	}

	/** The reply with its body replaced when an answer applies (consuming one use), else the reply itself. */
	apply(method: string, path: string, query: Query, reply: Reply): { reply: Reply; id: string | null } {
		if (reply.status < 200 || reply.status >= 300 || reply.status === 204 || reply.text !== undefined) return { reply, id: null };
		for (const answer of this.list) {
			if (answer.remaining <= 0) continue;
			if ((answer.spec.method ?? 'GET').toUpperCase() !== method) continue;
			if (!answer.re.test(path)) continue;
			const wanted = Object.entries(answer.spec.query ?? {});
			if (!wanted.every(([k, v]) => (Array.isArray(query[k]) ? (query[k] as string[]).includes(v) : query[k] === v))) continue;
			answer.remaining--;
			answer.hits++;
			// As text, so that every JSON value (null too) goes out exactly as given.
			const headers = { ...(reply.headers ?? {}), 'Content-Type': 'application/json; charset=utf-8' };
			const text = answer.spec.raw ?? JSON.stringify(answer.spec.body) ?? 'null';
			return { reply: { status: answer.spec.status ?? reply.status, headers, text }, id: answer.id };
		}
		return { reply, id: null };
	}

	remove(id: string): boolean {
		const before = this.list.length;
		this.list = this.list.filter((a) => a.id !== id);
		return this.list.length !== before;
	}

	clear(): void {
		this.list = [];
	}

	all(): Array<{ id: string; spec: AnswerSpec; remaining: number | 'always'; hits: number }> {
		return this.list.map((a) => ({ id: a.id, spec: a.spec, remaining: a.remaining === Infinity ? 'always' : a.remaining, hits: a.hits }));
	}
}
