import type { IDataObject } from 'n8n-workflow';

/** How many delivery ids the trigger remembers to recognise a retry. */
export const RECENT_DELIVERIES_LIMIT = 500;

export type OutputMode = 'eachPost' | 'eachDelivery';

export interface Delivery extends IDataObject {
	id?: string | number;
	event?: string;
	occurred_at?: string;
	data?: IDataObject;
}

export interface DeliveryFilter {
	/** Events to let through; empty lets every event through. */
	events: string[];
	/** Feed ids to let through for feed events; empty lets every feed through. */
	feedIds: string[];
	includeTestDeliveries: boolean;
	/** The editor asked for this test delivery: let it through whatever the filters say. */
	listeningForTest: boolean;
}

/** The body of a delivery, parsed from the raw bytes whose signature was checked. */
export function parseDelivery(rawBody: Buffer | string): Delivery | undefined {
	try {
		const parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as unknown;
		if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
		return parsed as Delivery;
	} catch {
		return undefined;
	}
}

export function deliveryId(delivery: Delivery): string | undefined {
	const id = delivery.id;
	if (typeof id === 'string' && id !== '') return id;
	if (typeof id === 'number') return String(id);
	return undefined;
}

export function isTestDelivery(delivery: Delivery): boolean {
	return delivery.data?.test === true;
}

/** The feed id a delivery is about: `data.feed.id`, `data.feed` or `data.feed_id`. */
export function deliveryFeedId(delivery: Delivery): string | undefined {
	const data = delivery.data;
	if (!data) return undefined;
	const feed = data.feed;
	if (feed && typeof feed === 'object' && 'id' in feed) return String((feed as IDataObject).id);
	if (typeof feed === 'string' || typeof feed === 'number') return String(feed);
	if (data.feed_id !== undefined && data.feed_id !== null) return String(data.feed_id);
	return undefined;
}

/** Why a verified delivery is not emitted, or `undefined` when it is. */
export function ignoreReason(delivery: Delivery, filter: DeliveryFilter): string | undefined {
	const test = isTestDelivery(delivery);
	if (test && filter.listeningForTest) return undefined;
	if (test && !filter.includeTestDeliveries) return 'test deliveries are turned off';
	const event = String(delivery.event ?? '');
	if (!test && filter.events.length > 0 && !filter.events.includes(event)) {
		return `event ${event || '(none)'} is not selected`;
	}
	if (filter.feedIds.length > 0) {
		const feedId = deliveryFeedId(delivery);
		if (feedId !== undefined && !filter.feedIds.includes(feedId)) return `feed ${feedId} is not selected`;
	}
	return undefined;
}

/**
 * The items of a delivery. One per delivery: the body as sent. One per post:
 * each post of a `post.created` delivery with its feed, source and the event
 * id; other events stay one item. A `post.created` without posts gives no item
 * unless it is a test delivery, which is shown as sent.
 */
export function deliveryItems(delivery: Delivery, mode: OutputMode): IDataObject[] {
	if (mode === 'eachDelivery') return [delivery];
	const data = delivery.data ?? {};
	const posts = Array.isArray(data.posts) ? (data.posts as IDataObject[]) : undefined;
	if (!posts) return [delivery];
	if (posts.length === 0) return isTestDelivery(delivery) ? [delivery] : [];
	const context: IDataObject = {
		feed: data.feed ?? null,
		source: data.source ?? null,
		event: delivery.event ?? null,
		event_id: delivery.id ?? null,
		occurred_at: delivery.occurred_at ?? null,
	};
	if (isTestDelivery(delivery)) context.test = true;
	return posts.map((post) => ({ ...(post && typeof post === 'object' ? post : { value: post }), ...context }));
}

/**
 * The memory of recent delivery ids after seeing `id`: newest last, at most
 * `limit` long. `seen` tells whether the id was there before.
 */
export function rememberDelivery(
	recent: unknown,
	id: string,
	limit = RECENT_DELIVERIES_LIMIT,
): { seen: boolean; recent: string[] } {
	const list = Array.isArray(recent) ? recent.filter((v): v is string => typeof v === 'string') : [];
	if (list.includes(id)) return { seen: true, recent: list };
	const next = [...list, id];
	return { seen: false, recent: next.length > limit ? next.slice(next.length - limit) : next };
}

/**
 * Delivery ids this n8n process has seen, per trigger node. n8n keeps what
 * `webhook()` writes to static data only when the delivery starts no
 * execution, so a retry of a delivery that ran the workflow finds no trace
 * there; this memory catches it, and two copies arriving at once. Static data
 * still carries ids across restarts where n8n saves it.
 */
const seenInProcess = new Map<string, string[]>();

/** How many trigger nodes the process memory keeps, the least recently used dropped first. */
const TRIGGERS_REMEMBERED = 1000;

/** Whether this process has seen delivery `id` at trigger `key` before; remembers it either way. */
export function seenBeforeInProcess(key: string, id: string): boolean {
	const memory = rememberDelivery(seenInProcess.get(key), id);
	seenInProcess.delete(key);
	seenInProcess.set(key, memory.recent);
	if (seenInProcess.size > TRIGGERS_REMEMBERED) {
		const oldest = seenInProcess.keys().next().value;
		if (oldest !== undefined) seenInProcess.delete(oldest);
	}
	return memory.seen;
}

/** Forgets what this process has seen, as a restart does. */
export function forgetDeliveriesInProcess(): void {
	seenInProcess.clear();
}

/** The events to subscribe to: the chosen ones and any typed in, without repeats, sorted. */
export function wantedEvents(chosen: unknown, typed: unknown): string[] {
	const list: string[] = [];
	if (Array.isArray(chosen)) list.push(...chosen.map((v) => String(v ?? '')));
	else if (typeof chosen === 'string') list.push(...chosen.split(','));
	if (typeof typed === 'string') list.push(...typed.split(','));
	else if (Array.isArray(typed)) list.push(...typed.map((v) => String(v ?? '')));
	return Array.from(new Set(list.map((e) => e.trim()).filter(Boolean))).sort();
}

export function sameEvents(a: unknown, b: string[]): boolean {
	if (!Array.isArray(a)) return false;
	const left = Array.from(new Set(a.map(String))).sort();
	return left.length === b.length && left.every((e, i) => e === b[i]);
}

/** The ids of a multi-select or a comma-separated list. */
export function idList(value: unknown): string[] {
	if (Array.isArray(value)) return value.map((v) => String(v ?? '').trim()).filter(Boolean);
	if (typeof value === 'string' || typeof value === 'number') {
		return String(value)
			.split(',')
			.map((v) => v.trim())
			.filter(Boolean);
	}
	return [];
}
