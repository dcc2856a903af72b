import type { IncomingMessage } from 'http';
import type { Service } from './service';
import type { State } from './state';
import type { Account, ApiKey, User } from './types';
import type { Shapes } from './shapes';
import type { Query } from './util';

export interface Auth {
	key: ApiKey;
	account: Account;
	user: User;
}

export interface Ctx {
	svc: Service;
	state: State;
	method: string;
	/** Path relative to the base URL (without /v1), e.g. /feeds/1/posts. */
	path: string;
	params: Record<string, string>;
	query: Query;
	body: unknown;
	rawBody: string;
	auth: Auth | null;
	req: IncomingMessage;
	/** Credits this request spent (Data API), for the request log. */
	credits?: number;
}

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Non-JSON body (web pages). */
	text?: string;
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export interface Route {
	method: string;
	pattern: string;
	/** false: no Bearer key needed (POST /authorize, GET /authorize/{id}). */
	auth: boolean;
	/** A route of one shape only (the live endpoint map lacks `GET /webhooks/{id}`, SPEC.md the delivery log); absent: both. */
	onlyIn?: Shapes;
	handler: Handler;
	re: RegExp;
	names: string[];
}

/** Compile '/feeds/:feed_id/posts/:id' (and '*' for the rest of a path) to a regular expression. */
export function compilePattern(pattern: string): { re: RegExp; names: string[] } {
	const names: string[] = [];
	const src = pattern
		.split('/')
		.map((seg) => {
			if (seg.startsWith(':')) {
				names.push(seg.slice(1));
				return '([^/]+)';
			}
			if (seg === '*') return '.*';
			return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		})
		.join('/');
	return { re: new RegExp(`^${src}/?$`), names };
}

export class Router {
	readonly routes: Route[] = [];

	add(method: string, pattern: string, handler: Handler, options: { auth?: boolean; onlyIn?: Shapes } = {}): void {
		const { re, names } = compilePattern(pattern);
		this.routes.push({ method, pattern, auth: options.auth ?? true, onlyIn: options.onlyIn, handler, re, names });
	}

	get(pattern: string, handler: Handler, options?: { auth?: boolean; onlyIn?: Shapes }): void {
		this.add('GET', pattern, handler, options);
	}

	post(pattern: string, handler: Handler, options?: { auth?: boolean; onlyIn?: Shapes }): void {
		this.add('POST', pattern, handler, options);
	}

	patch(pattern: string, handler: Handler): void {
		this.add('PATCH', pattern, handler);
	}

	put(pattern: string, handler: Handler): void {
		this.add('PUT', pattern, handler);
	}

	delete(pattern: string, handler: Handler): void {
		this.add('DELETE', pattern, handler);
	}

	match(method: string, path: string, shapes?: Shapes): { route: Route; params: Record<string, string> } | { route: null; pathExists: boolean } {
		let pathExists = false;
		for (const route of this.routes) {
			if (route.onlyIn && shapes && route.onlyIn !== shapes) continue;
			const m = route.re.exec(path);
			if (!m) continue;
			if (route.method !== method) {
				pathExists = true;
				continue;
			}
			const params: Record<string, string> = {};
			route.names.forEach((name, i) => {
				params[name] = decodeURIComponent(m[i + 1]);
			});
			return { route, params };
		}
		return { route: null, pathExists };
	}
}
