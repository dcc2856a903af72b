import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

/** A service with a delivery log (or none: `log` undefined answers 404) and two feeds' posts, newest first. */
export class CatchUpService {
	requests: string[] = [];

	/** Called before each answer of a feed's posts, with how many were answered before. */
	beforeFeedPage?: (answered: number) => void;
	private feedPages = 0;

	constructor(
		public log: IDataObject[] | undefined,
		public posts: Record<string, IDataObject[] | (() => IDataObject[])>,
		/** How the log is listed, and whether its `status` filter works: neither is documented. */
		public logShape: { order?: 'newest' | 'oldest'; statusFilter?: 'honoured' | 'ignored' } = {},
	) {}

	async handle(options: IHttpRequestOptions): Promise<{ statusCode: number; headers: IDataObject; body: unknown }> {
		const url = new URL(String(options.url));
		const path = url.pathname.replace(/^\/v1/, '');
		const method = String(options.method ?? 'GET');
		this.requests.push(`${method} ${path}`);
		const qs = (options.qs ?? {}) as IDataObject;
		const page = Number(qs.page ?? 1);
		const perPage = Number(qs.per_page ?? 20);
		const paged = (list: IDataObject[]) => ({
			statusCode: 200,
			headers: {},
			body: { data: list.slice((page - 1) * perPage, page * perPage), meta: { page, per_page: perPage, total_count: list.length, total_pages: Math.max(1, Math.ceil(list.length / perPage)) } },
		});
		const redeliver = /^\/webhooks\/1\/deliveries\/([^/]+)\/redeliver$/.exec(path);
		if (redeliver && method === 'POST' && this.log) {
			const entry = this.log.find((e) => e.id === decodeURIComponent(redeliver[1]));
			// Sent again: pending for the next read of the log, then succeeded.
			if (entry) entry.status = 'pending';
			return { statusCode: entry ? 202 : 404, headers: {}, body: entry ? { data: { delivery_id: entry.id } } : { error: { code: 'not_found', message: 'Not found' } } };
		}
		if (path === '/webhooks/1/deliveries') {
			if (!this.log) return { statusCode: 404, headers: {}, body: { error: { code: 'not_found', message: 'Not found' } } };
			const listed = this.logShape.order === 'oldest' ? [...this.log] : [...this.log].reverse();
			const filtered = this.logShape.statusFilter === 'ignored' ? listed : listed.filter((e) => qs.status === undefined || e.status === qs.status);
			const answer = paged(filtered.map((e) => ({ ...e })));
			for (const e of this.log) if (e.status === 'pending' && e.id !== 'kick') e.status = 'succeeded';
			return answer;
		}
		if (path === '/feeds') return paged(Object.keys(this.posts).map((id) => ({ id: Number(id), name: `Feed ${id}` })));
		const feed = /^\/feeds\/(\d+)\/posts$/.exec(path);
		if (feed) {
			this.beforeFeedPage?.(this.feedPages++);
			const list = this.posts[feed[1]] ?? [];
			return paged(typeof list === 'function' ? list() : list);
		}
		return { statusCode: 404, headers: {}, body: { error: { code: 'not_found', message: `no route ${path}` } } };
	}
}
