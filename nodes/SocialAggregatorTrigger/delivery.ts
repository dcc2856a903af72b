import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { eventList, feedIdList } from '../shared/input';
import { describeFailure, verifyDelivery, type HeaderBag } from './signature';
import { idValue, isObject } from '../shared/utils';
import { caughtUpId, idText, rawIdToken } from './deliveryId';
import type { SealedState } from './sealedState';

/** The most a delivery may hold, refused with 413 before any signature check (n8n itself reads up to 16 MB). */
const MAX_DELIVERY_BYTES = 5 * 1024 * 1024;

/** The catch-up span when the option is not set (days). */
const DEFAULT_CATCH_UP_DAYS = 7;

type OutputMode = 'eachPost' | 'eachDelivery';

export interface Delivery extends IDataObject {
	id?: string | number;
	event?: string;
	occurred_at?: string;
	data?: IDataObject;
}

interface DeliveryFilter {
	/** Events to let through; empty lets every event through. */
	events: string[];
	/** Feed ids to let through for feed events; empty lets every feed through. */
	feedIds: string[];
	includeTestDeliveries: boolean;
	/** The editor asked for this test delivery: let it through whatever the filters say. */
	listeningForTest: boolean;
}

/** What webhook() reads from n8n for one delivery. */
export interface DeliveryRequest {
	headers: HeaderBag;
	rawBody: Buffer | undefined;
	/** This trigger's signing secrets; a delivery signed with any of them is accepted. */
	secrets: Array<string | undefined>;
	/**
	 * A node parameter as stored, an expression as its text (`={{ … }}`): reading it takes no expression
	 * isolate. An n8n that evaluates it anyway may throw, which a signed delivery answers with 422.
	 */
	parameter: (name: string, fallback: unknown) => unknown;
	/** A node parameter evaluated: only for a Signature Header given as an expression; may throw. */
	evaluate: (name: string, fallback: unknown) => unknown;
	/** The editor is listening for a test event: nothing is de-duplicated or remembered. */
	manual: boolean;
	/** Whether this process has handled delivery `id` before. */
	handledBefore: (id: string) => boolean;
	/** Whether this delivery should look back for a gap (the first after a quiet spell); asked once per delivery. */
	lookBackDue: () => boolean;
	/** When the delivery arrived (ms since 1970), for Max Age; default now. */
	receivedAt?: number;
}

/** The answer to the sender (a 2xx or a JSON error), the items to emit and the id to remember as handled. */
export interface DeliveryAnswer {
	status: number;
	body: IDataObject;
	items?: IDataObject[];
	remember?: string;
	/** The delivery id as text (the exact digits of a long number), when it has one. */
	id?: string;
	log?: { level: 'debug' | 'warn'; message: string };
	/** The delivery looks back: the execution it starts catches up first (catchUp.ts). */
	catchUp?: CatchUpSignal;
}

/** The delivery that asks for a look back: its id and when it occurred. */
export interface CatchUpSignal extends IDataObject {
	id: string;
	occurred_at: string | null;
	/** A test delivery asks for it (a re-enable, a user): a look back owed need not wait for its turn. */
	test?: boolean;
}

/**
 * The field of the one item that carries a catch-up signal from webhook() to execute(), never output. n8n hands
 * execute() nothing of webhook()'s but its items (in queue mode through its database, to a worker; static data
 * webhook() writes is dropped), so the signal travels as an item of its own: added by `emittedItems`, taken out by
 * `takeCatchUpSignal`, and nowhere else.
 */
const CATCH_UP_SIGNAL = 'socialAggregatorCatchUp';

/**
 * The field, in the same item, of the static data the webhook process read for the trigger (owed.ts, `seenState`),
 * sealed with the credential (sealedState.ts): n8n 2.x queues an execution without the workflow's static data, so a
 * worker would know neither the subscription nor the look back owed.
 */
const SEEN_STATE = 'socialAggregatorState';

/** The trigger's static data as webhook() read it from n8n's database: its node's, and the workflow's global. */
export interface SeenState extends IDataObject {
	node: IDataObject;
	global?: IDataObject;
}

const hidden = (json: IDataObject) => CATCH_UP_SIGNAL in json || SEEN_STATE in json;

/**
 * What webhook() emits for an answer: the delivery's items, then, when it looks back or hands its execution the static
 * data it read (`seen`: webhook() seals it only for a delivery that starts one), an item of their own.
 */
export function emittedItems(answer: DeliveryAnswer, seen?: SealedState): IDataObject[] | undefined {
	if (!answer.catchUp && !seen) return answer.items;
	return [...(answer.items ?? []), { ...(answer.catchUp ? { [CATCH_UP_SIGNAL]: answer.catchUp } : {}), ...(seen ? { [SEEN_STATE]: seen } : {}) }];
}

/**
 * What execute() received, the hidden item taken out: the deliveries' items, the catch-up signal and its item's index
 * (or -1), and the static data webhook() read, as it sealed it.
 */
export function takeCatchUpSignal(received: INodeExecutionData[]): { items: INodeExecutionData[]; signal?: CatchUpSignal; signalAt: number; sealed?: unknown } {
	const at = received.findIndex((item) => hidden(item.json));
	const items = received.filter((item) => !hidden(item.json));
	const json = at >= 0 ? received[at].json : {};
	const signal = json[CATCH_UP_SIGNAL] as CatchUpSignal | undefined;
	return { items, signal, signalAt: signal ? at : -1, sealed: json[SEEN_STATE] };
}

/** The catch-up span in days (the option "Catch-Up Span (Days)"); 0 turns catch-up off. */
export function catchUpDays(value: unknown): number {
	const days = value === undefined || value === '' || value === null ? DEFAULT_CATCH_UP_DAYS : Number(value);
	return Number.isFinite(days) && days > 0 ? days : 0;
}

/** The parameters that decide what a delivery becomes. */
export interface DeliverySettings {
	events: unknown;
	output: unknown;
	options: IDataObject;
}

function refusal(status: number, code: string, message: string, log?: DeliveryAnswer['log']): DeliveryAnswer {
	return { status, body: { error: { code, message } }, log };
}

/** Whether a stored parameter holds an expression anywhere (a text starting with `=`). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/** The settings as stored, or `undefined` when one is an expression: then execute() filters and shapes. */
export function storedSettings(parameter: DeliveryRequest['parameter']): DeliverySettings | undefined {
	const settings = {
		events: parameter('events', []),
		output: parameter('output', 'eachPost'),
		options: (parameter('options', {}) as IDataObject) ?? {},
	};
	return holdsExpression(settings) ? undefined : settings;
}

/** An option webhook() must know: one given as an expression is evaluated (the only ones webhook() evaluates). */
function optionValue(request: DeliveryRequest, name: string, fallback: unknown): unknown {
	const stored = request.parameter(`options.${name}`, fallback);
	return holdsExpression(stored) ? request.evaluate(`options.${name}`, fallback) : stored;
}

/** The Signature Header option. */
function signatureHeaderName(request: DeliveryRequest): string | undefined {
	const value = optionValue(request, 'signatureHeader', '');
	return typeof value === 'string' ? value : undefined;
}

/** The Max Age option in minutes; 0 (the default) is no limit. */
function maxAgeMinutes(request: DeliveryRequest): number {
	const value = optionValue(request, 'maxAge', 0);
	const minutes = value === '' || value === null || value === undefined ? 0 : Number(value);
	if (!Number.isFinite(minutes) || minutes < 0) throw new Error(`the option "Max Age (Minutes)" is ${JSON.stringify(value)}, not a number of minutes of 0 or more`);
	return minutes;
}

/** The size a delivery declares (Content-Length) or has, whichever is larger. */
function deliverySize(headers: HeaderBag, rawBody: Buffer | undefined): number {
	const header = headers['content-length'];
	const declared = typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header) : 0;
	return Math.max(declared, rawBody?.length ?? 0);
}

/** A 413 for a delivery larger than MAX_DELIVERY_BYTES: decided on its Content-Length before the body is read, if it has one. */
export function sizeRefusal(headers: HeaderBag, rawBody: Buffer | undefined): DeliveryAnswer | undefined {
	const size = deliverySize(headers, rawBody);
	if (size <= MAX_DELIVERY_BYTES) return undefined;
	const message = `Social Aggregator Trigger refused a delivery with 413: ${size} bytes, more than the ${MAX_DELIVERY_BYTES} bytes (5 MB) a delivery may hold`;
	return refusal(413, 'payload_too_large', 'A delivery may hold at most 5 MB', { level: 'warn', message });
}

/**
 * A 422 for a delivery whose signed occurred_at lies more than Max Age before it arrived, or that has no time to
 * check while a Max Age is set: a captured delivery cannot be replayed once it is old.
 */
function ageRefusal(delivery: Delivery, id: string | undefined, maxAge: number, receivedAt: number): DeliveryAnswer | undefined {
	if (maxAge === 0) return undefined;
	const { occurred_at: occurredAt } = delivery;
	const occurred = typeof occurredAt === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(occurredAt) ? Date.parse(occurredAt) : NaN;
	const limit = `Max Age (${maxAge} min)`;
	if (Number.isNaN(occurred)) {
		const message = `Social Aggregator Trigger refused delivery ${id ?? '(no id)'} with 422: it has no occurred_at to check against ${limit}`;
		return refusal(422, 'stale_delivery', 'The delivery has no occurred_at to check its age', { level: 'warn', message });
	}
	const ageMinutes = (receivedAt - occurred) / 60_000;
	if (ageMinutes <= maxAge) return undefined;
	const message = `Social Aggregator Trigger refused delivery ${id ?? '(no id)'} with 422: it occurred at ${occurredAt}, ${Math.floor(ageMinutes)} min before it arrived, past ${limit}`;
	return refusal(422, 'stale_delivery', `The delivery is older than ${maxAge} minutes`, { level: 'warn', message });
}

/** What a verified delivery becomes under `settings`: items, or the reason it is ignored. */
export function applySettings(
	delivery: Delivery,
	settings: DeliverySettings,
	listeningForTest: boolean,
): { items: IDataObject[]; ignored?: string } {
	const { options } = settings;
	const ignored = ignoreReason(delivery, {
		events: eventList(settings.events, options.additionalEvents),
		feedIds: feedIdList(options.feedIds),
		includeTestDeliveries: options.includeTestDeliveries !== false,
		listeningForTest,
	});
	if (ignored) return { items: [], ignored };
	return { items: deliveryItems(delivery, settings.output === 'eachDelivery' ? 'eachDelivery' : 'eachPost') };
}

/** The answer body of a delivery that starts the workflow: `{ received: true, id }`. */
function startedBody(delivery: Delivery): IDataObject {
	return delivery.id === undefined ? { received: true } : { received: true, id: delivery.id };
}

/** A delivery checked, then refused, recognised as a copy, ignored with a reason, or turned into items. */
export function answerDelivery(request: DeliveryRequest): DeliveryAnswer {
	// Before any HMAC pass over it.
	const tooLarge = sizeRefusal(request.headers, request.rawBody);
	if (tooLarge) return tooLarge;
	let headerName: string | undefined;
	try {
		headerName = signatureHeaderName(request);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		const message = `Social Aggregator Trigger refused a delivery with 401: the option "Signature Header" could not be evaluated: ${reason}`;
		return refusal(401, 'invalid_signature', 'The signature could not be checked', { level: 'warn', message });
	}
	const verdict = verifyDelivery({ headers: request.headers, rawBody: request.rawBody, secrets: request.secrets, headerName });
	if (!verdict.valid) {
		const message = `Social Aggregator Trigger refused a delivery with 401: ${describeFailure(verdict)}`;
		return refusal(401, 'invalid_signature', 'The signature is missing or does not match', { level: 'warn', message });
	}

	const text = request.rawBody === undefined ? '' : request.rawBody.toString('utf8');
	const delivery = parseDelivery(text);
	if (!delivery) return refusal(400, 'invalid_body', 'The body is not a JSON object');
	// The id as the service wrote it: a number past 2^53 keeps every digit, a text of digits stays text.
	const raw = rawIdToken(text);
	const id = raw?.text ?? idText(delivery.id);
	if (raw) delivery.id = raw.number ? idValue(raw.text) : raw.text;
	const remember = request.manual ? undefined : id;

	// Copies that reach this process at once stop here; execute() checks n8n's database for the rest.
	if (remember !== undefined && request.handledBefore(remember)) {
		const message = `Social Aggregator Trigger: delivery ${remember} was already received; not emitted again`;
		return { status: 200, body: { received: true, duplicate: true }, log: { level: 'debug', message } };
	}
	try {
		// After the copy check: a copy of a delivery already handled is still answered 200, so its sender stops retrying.
		const stale = ageRefusal(delivery, id, maxAgeMinutes(request), request.receivedAt ?? Date.now());
		if (stale) return stale;
		return settledAnswer(request, delivery, id, remember);
	} catch (error) {
		// A signed delivery of an unexpected shape, or an option that fails: a 4xx, never n8n's 500; not
		// remembered, so a retry is handled afresh.
		const reason = error instanceof Error ? error.message : String(error);
		const message = `Social Aggregator Trigger: delivery ${id ?? '(no id)'} could not be handled: ${reason}`;
		return refusal(422, 'unusable_delivery', 'The delivery could not be handled', { level: 'warn', message });
	}
}

/** A delivery not handled before, under the trigger's settings: its items, or why it starts nothing; and whether it looks back. */
function settledAnswer(request: DeliveryRequest, delivery: Delivery, id: string | undefined, remember: string | undefined): DeliveryAnswer {
	const settings = storedSettings(request.parameter);
	// A setting that is an expression is evaluated in execute(), with the delivery as its input.
	if (!settings) return { status: 200, body: startedBody(delivery), items: [delivery], remember, id, catchUp: lookBackSignal(request, delivery, id) };
	const { items, ignored } = applySettings(delivery, settings, request.manual);
	if (ignored) {
		const message = `Social Aggregator Trigger: delivery ${String(delivery.id ?? '(no id)')} ignored: ${ignored}`;
		const answer: DeliveryAnswer = { status: 200, body: { received: true, ignored }, log: { level: 'debug', message }, remember };
		// A delivery the filters ignore passes none of its own on, but still looks back when one is due: after a
		// re-enable it may be the only sign that the subscription delivers again (another feed's, say).
		const catchUp = lookBackSignal(request, delivery, id);
		return catchUp ? { ...answer, items: [], id, catchUp } : answer;
	}
	const catchUp = lookBackSignal(request, delivery, id);
	if (items.length === 0 && !catchUp) {
		// A `post.created` with an empty `posts` list: nothing to start, and the sender is told so.
		const message = `Social Aggregator Trigger: delivery ${String(delivery.id ?? '(no id)')} ignored: it carries no posts`;
		return { status: 200, body: { received: true, ignored: 'the delivery carries no posts' }, log: { level: 'debug', message }, remember };
	}
	return { status: 200, body: startedBody(delivery), items, remember, id, catchUp };
}

/**
 * The signal to look back for a gap (docs/exactly-once.md#catch-up), with catch-up on: for the first delivery to the
 * live trigger after a quiet spell, and for every test delivery (a re-enable asks for one).
 */
function lookBackSignal(request: DeliveryRequest, delivery: Delivery, id: string | undefined): CatchUpSignal | undefined {
	if (request.manual || id === undefined) return undefined;
	if (catchUpDays(optionValue(request, 'catchUpDays', DEFAULT_CATCH_UP_DAYS)) === 0) return undefined;
	// Asked first: every delivery counts towards the quiet spell, a test delivery too.
	if (!request.lookBackDue() && !isTestDelivery(delivery)) return undefined;
	const signal: CatchUpSignal = { id, occurred_at: typeof delivery.occurred_at === 'string' ? delivery.occurred_at : null };
	return isTestDelivery(delivery) ? { ...signal, test: true } : signal;
}

/** Parsed from the raw text whose signature was checked, never from n8n's parsed body. */
function parseDelivery(text: string): Delivery | undefined {
	try {
		const parsed = JSON.parse(text) as unknown;
		if (!isObject(parsed)) return undefined;
		return parsed as Delivery;
	} catch {
		return undefined;
	}
}

function isTestDelivery(delivery: Delivery): boolean {
	return isObject(delivery.data) && delivery.data.test === true;
}

/** The feed id a delivery is about: `data.feed.id`, `data.feed` or `data.feed_id`. */
function deliveryFeedId(delivery: Delivery): string | undefined {
	const data = delivery.data;
	if (!data || typeof data !== 'object') return undefined;
	const feed = data.feed;
	const id = feed && typeof feed === 'object' ? (feed as IDataObject).id : feed ?? data.feed_id;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** The posts an item of a delivery carries (one post's item, with its `feed`, or a delivery whole), with their feed. */
function carriedPosts(item: IDataObject): Array<{ feedId: string; post: IDataObject }> {
	const posts = isObject(item.data) && Array.isArray(item.data.posts) ? item.data.posts : undefined;
	const feedId = posts ? deliveryFeedId(item as Delivery) : deliveryFeedId({ data: { feed: item.feed } });
	if (feedId === undefined) return [];
	const withId = (post: unknown): post is IDataObject => isObject(post) && (typeof post.id === 'number' || typeof post.id === 'string');
	return (posts ?? [item]).filter(withId).map((post) => ({ feedId, post }));
}

/** Whether an item is of a test delivery (its posts are samples) or of a catch-up (its posts read from a feed). */
function carriesNoDelivered(item: IDataObject): boolean {
	return item.test === true || item.caught_up === true || isTestDelivery(item as Delivery) || (isObject(item.data) && item.data.caught_up === true);
}

/**
 * The posts a delivery's items carry, as `<feed>:<post>`: from items of one post each (with their `feed`), or from a
 * delivery whole (`data.posts`), those stored before `storedBefore` when given. A catch-up does not read them as the
 * gap's. A test delivery's posts are samples (the service may pick real posts of the gap): they stand in for none.
 */
export function deliveredPosts(items: IDataObject[], storedBefore = Infinity): Set<string> {
	const keys = new Set<string>();
	for (const item of items) {
		if (carriesNoDelivered(item)) continue;
		for (const { feedId, post } of carriedPosts(item)) {
			// Stored after it (`storedBefore`, a kick's time), a post is not in the gap: not worth carrying.
			if (typeof post.created_at === 'string' && Date.parse(post.created_at) >= storedBefore) continue;
			keys.add(`${feedId}:${String(post.id)}`);
		}
	}
	return keys;
}

/**
 * The catch-up IDs of the posts a `post.created` item carries that were stored within `window` (ms): posts a look
 * back may read as a gap's while the delivery is on its way; each is acted on once, by whichever comes first
 * (docs/exactly-once.md#catch-up).
 */
export function gapPostIds(item: IDataObject, window: { from: number; before: number }): string[] {
	if (item.event !== 'post.created' || carriesNoDelivered(item)) return [];
	const storedWithin = ({ post }: { post: IDataObject }) => {
		const at = typeof post.created_at === 'string' ? Date.parse(post.created_at) : NaN;
		return at >= window.from && at < window.before;
	};
	return carriedPosts(item).filter(storedWithin).map(({ feedId, post }) => caughtUpId(feedId, post.id));
}

/** The item without the posts a catch-up acted on first (`taken`, their catch-up IDs); undefined when none is left. */
export function withoutCaughtUp(item: IDataObject, taken: Set<string>): IDataObject | undefined {
	const gone = new Set(carriedPosts(item).filter(({ feedId, post }) => taken.has(caughtUpId(feedId, post.id))).map(({ post }) => post));
	if (gone.size === 0) return item;
	if (!isObject(item.data) || !Array.isArray(item.data.posts)) return undefined;
	const left = item.data.posts.filter((post) => !gone.has(post as IDataObject));
	return left.length === 0 ? undefined : { ...item, data: { ...item.data, posts: left } };
}

/** Why a verified delivery is not emitted, or `undefined` when it is. */
function ignoreReason(delivery: Delivery, filter: DeliveryFilter): string | undefined {
	const test = isTestDelivery(delivery);
	if (test && filter.listeningForTest) return undefined;
	if (test && !filter.includeTestDeliveries) return 'test deliveries are turned off';
	// Only text is an event name: whatever else came (an object, a list) names none.
	const event = typeof delivery.event === 'string' ? delivery.event : '';
	if (!test && filter.events.length > 0 && !filter.events.includes(event)) {
		return `event ${event || '(none)'} is not selected`;
	}
	if (filter.feedIds.length > 0) {
		const feedId = deliveryFeedId(delivery);
		if (feedId !== undefined && !filter.feedIds.includes(feedId)) return `feed ${feedId} is not selected`;
	}
	return undefined;
}

/** One item per delivery, or per post with its feed, source and event id; no posts, no item, unless a test. */
function deliveryItems(delivery: Delivery, mode: OutputMode): IDataObject[] {
	if (mode === 'eachDelivery') return [delivery];
	const data = isObject(delivery.data) ? delivery.data : {};
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
	if (data.caught_up === true) context.caught_up = true;
	return posts.map((post) => ({ ...(post && typeof post === 'object' ? post : { value: post }), ...context }));
}
