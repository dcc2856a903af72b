import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listAnswer } from '../shared/answerShapes';
import { redeliveryPath } from '../shared/deliveryLog';
import { DEFAULT_LATE_HOURS, FEED_PAGE_SIZE, feedPageAnswer, walkFeedPosts, type FeedPage, type FeedPost, type HeldWalk } from '../shared/feedWalk';
import { collectPages } from '../shared/pages';
import { apiRequestChecked, apiRequestFull } from '../shared/transport';
import { isDigits } from '../shared/utils';
import { caughtUpDelivery, createdAt, leaveUnsent, planCatchUp, spansToRead, type Span } from './catchUpPlan';
import { readLogBack, stillPending } from './logWalk';
import type { Delivery } from './delivery';

// Catch-up after a gap (docs/exactly-once.md#catch-up): when a subscription that stopped delivering is set active
// again, the first delivery after it (or a test delivery) asks the trigger to look back. The deliveries that failed
// are redelivered by the service (docs/service.md#delivery-log), and the posts added while none was made are read
// from the feeds and emitted as post.created deliveries of their own, each with an ID the exactly-once records keep.

/** Pages of one feed that one look back reads at most: a feed's longer gap is read on by the next look back, from where this one stopped. */
export const MAX_PAGES_READ = 50;

/** How long the catch-up waits for the service to send the deliveries it redelivers, asked every POLL_MS. */
const REDELIVERY_WAIT_MS = 30_000;
const POLL_MS = 250;

export interface CatchUpRequest {
	subscriptionId: string;
	kick: { id: string; at: number };
	spanDays: number;
	/** The feeds the trigger lets through; empty: every feed of the account. */
	feedIds: string[];
	/** Posts the delivery that looks back carries itself (`<feed>:<post>`): delivered, so never read as the gap's. */
	delivered?: Set<string>;
	/** false: the trigger lets no `post.created` through, so the gap's posts are not read (its failed deliveries are still sent again). */
	readPosts?: boolean;
	/** The trigger's Max Age (minutes; 0 or absent: none): failed deliveries older than it are not sent again. */
	maxAgeMinutes?: number;
	/** When the subscription was made (ms), where the trigger knows: no post before it was delivered. */
	subscriptionCreatedAt?: number;
	/**
	 * Claims the gap (`<subscription>:<newest failed delivery>`) for this look back in n8n's database; false: another
	 * look back, in any process, holds it. Absent: no claim.
	 */
	claimGap?: (gap: string) => Promise<boolean>;
}

/** A feed whose posts of the gap are still to read: from its start, or from where a walk stopped. */
interface PendingFeed {
	feed: IDataObject;
	held?: HeldWalk;
}

/** What a look back found in the log and has not done yet. */
export interface UnreadGap {
	spans: Span[];
	/** Failed deliveries still to send again, oldest first; absent: all sent. */
	redeliver?: string[];
	/** The log page each was found on, where a poll for it starts. */
	logPages?: Record<string, number>;
	/** The feeds still to read; absent: every feed the trigger reads. */
	feeds?: PendingFeed[];
	/** What stopped the read; absent when a page cap did. */
	error?: unknown;
}

export interface CatchUpResult {
	/** The gap's posts as deliveries, oldest first. */
	deliveries: Delivery[];
	redelivered: number;
	/** What the user should know: a log the service does not keep, a span that cut the gap. */
	notes: string[];
	/** What of the gap is still to read (the deliveries hold what was read): for the next look back. */
	unread?: UnreadGap;
}

/**
 * Asks the service to send each delivery again, oldest first, the next once the log shows the one before sent (within
 * REDELIVERY_WAIT_MS in all), so that their executions start in the order of their posts. One the service refuses
 * for good is noted and skipped; an error (a 5xx, which is not retried, or the log failing) stops here: `left` holds
 * that delivery and the rest, asked again by the next try (a copy is acted on once).
 */
async function redeliver(
	ctx: IExecuteFunctions,
	subscriptionId: string,
	gap: Pick<UnreadGap, 'redeliver' | 'logPages'>,
	notes: string[],
): Promise<{ sent: number; left?: string[]; error?: unknown }> {
	const ids = gap.redeliver ?? [];
	let sent = 0;
	const until = Date.now() + REDELIVERY_WAIT_MS;
	for (const [index, id] of ids.entries()) {
		try {
			const path = redeliveryPath(subscriptionId, id);
			const answer = await apiRequestFull.call(ctx, { method: 'POST', path, acceptStatuses: [404, 409, 410, 422] });
			if (answer.statusCode >= 400) {
				notes.push(`delivery ${id} could not be redelivered (HTTP ${answer.statusCode})`);
				continue;
			}
			sent++;
			while (Date.now() < until && (await stillPending(ctx, subscriptionId, id, gap.logPages?.[id]))) await sleep(POLL_MS);
		} catch (error) {
			return { sent, left: ids.slice(index), error };
		}
	}
	return { sent };
}

/** The feeds to read: those chosen, or every feed of the account. */
async function feedsToRead(ctx: IExecuteFunctions, feedIds: string[]): Promise<IDataObject[]> {
	if (feedIds.length > 0) return feedIds.map((id) => ({ id: isDigits(id) ? Number(id) : id }));
	const fetchPage = async (page: number, perPage: number) =>
		await apiRequestChecked(ctx, { method: 'GET', path: '/feeds', qs: { page, per_page: perPage } }, listAnswer);
	const feeds = await collectPages<IDataObject>({ returnAll: true, fetchPage, key: (feed) => String(feed.id) });
	return feeds.map((feed) => ({ id: feed.id, ...(feed.name !== undefined ? { name: feed.name } : {}) }));
}

/**
 * The posts of one feed stored in the spans, found by the walk the Feed Trigger uses (shared/feedWalk.ts), whatever
 * order the service lists them in: down to posts stored before the oldest span and published a late window before it,
 * at most MAX_PAGES_READ pages (`held`: where the next look back reads on).
 */
async function gapPostsOf(ctx: IExecuteFunctions, pending: PendingFeed, spans: Span[], notes: string[]): Promise<{ posts: FeedPost[]; held?: HeldWalk }> {
	const { feed } = pending;
	const path = `/feeds/${encodeURIComponent(String(feed.id))}/posts`;
	let missing = false;
	const fetchPage = async (page: number, perPage: number): Promise<FeedPage> => {
		const request = { method: 'GET' as const, path, qs: { page, per_page: perPage }, acceptStatuses: [404] };
		const answer = await apiRequestChecked(ctx, request, (body, at) => (at.statusCode === 404 ? undefined : feedPageAnswer(body, { ...at, page })));
		missing = answer === undefined;
		return answer ?? { posts: [] };
	};
	const after = Math.min(...spans.map((span) => span.after));
	const bound = { isOld: (post: FeedPost) => !(createdAt(post) > after), since: after, lateMs: DEFAULT_LATE_HOURS * 3_600_000 };
	let firstPins: string | undefined;
	const onRead = (posts: FeedPost[]) => (firstPins ??= pinnedIds(posts));
	const walk = await walkFeedPosts(fetchPage, bound, { maxPages: MAX_PAGES_READ, held: pending.held, onRead });
	if (missing) notes.push(`feed ${String(feed.id)} was not found (404): its posts of the gap were not read`);
	let posts = walk.posts;
	if (!pending.held && walk.done && walk.requests > 1 && pinnedIds((await fetchPage(1, FEED_PAGE_SIZE)).posts) !== firstPins) {
		// A post pinned or unpinned while the walk read on moved the posts between onto pages already read, and the
		// service's count did not change: walk once more; what both walks found counts once.
		const again = await walkFeedPosts(fetchPage, bound, { maxPages: MAX_PAGES_READ });
		posts = [...new Map([...posts, ...again.posts].map((post) => [post.id, post])).values()];
	}
	const inSpans = (post: FeedPost) => spans.some((span) => createdAt(post) > span.after && createdAt(post) < span.before);
	// A held walk reads its last page again first: those posts were given by the look back before.
	const given = new Set(pending.held?.seen ?? []);
	return { posts: posts.filter((post) => inSpans(post) && !given.has(post.id)), held: missing ? undefined : walk.held };
}

/** The posts a page lists as pinned, as one text to compare. */
function pinnedIds(posts: FeedPost[]): string {
	return posts
		.filter((post) => post.pinned === true)
		.map((post) => post.id)
		.sort((a, b) => a - b)
		.join(',');
}

/**
 * Redelivers the failed deliveries of the log and reads the gap's posts from the feeds. A service that keeps no
 * delivery log (404) gives nothing to go on: noted, nothing read.
 */
export async function catchUp(ctx: IExecuteFunctions, request: CatchUpRequest): Promise<CatchUpResult> {
	// The span is counted on the service's clock: back from when the delivery that looks back occurred.
	const floor = request.kick.at - request.spanDays * 86_400_000;
	const notes: string[] = [];
	// The newest page first: on a subscription that was delivering it decides alone, in one request.
	const log = await readLogBack(ctx, request.subscriptionId, request.kick, floor);
	if (log.missing) {
		notes.push('the service keeps no delivery log (404), so the gap could not be found: nothing was caught up');
		return { deliveries: [], redelivered: 0, notes };
	}
	const { entries } = log;
	let plan = planCatchUp(entries, request.kick, floor);
	if (request.maxAgeMinutes) {
		// Sent again now, received within the wait for redeliveries: one that would then be past Max Age is left unsent.
		const sendableFrom = Date.now() + REDELIVERY_WAIT_MS + 60_000 - request.maxAgeMinutes * 60_000;
		plan = leaveUnsent(plan, entries, { floor, sendableFrom, createdAt: request.subscriptionCreatedAt });
		if (plan.unsent) notes.push(unsentNote(plan.unsent.length, request));
	}
	if (plan.redeliver.length === 0 && !plan.gap && !plan.unsent) return { deliveries: [], redelivered: 0, notes };
	// One look back per gap: two first deliveries after a re-enable, in two webhook processes, find the same one.
	if (request.claimGap && plan.gapOf !== undefined && !(await request.claimGap(`${request.subscriptionId}:${plan.gapOf}`))) {
		notes.push(`the gap after delivery ${plan.gapOf} is caught up by another look back`);
		return { deliveries: [], redelivered: 0, notes };
	}
	if (plan.cutAt !== undefined) {
		notes.push(`the gap began before the catch-up span of ${request.spanDays} days: nothing before ${new Date(plan.cutAt).toISOString()} was caught up`);
	}
	// Found: once a failed delivery is sent again the log no longer shows the gap, so from here on whatever stops the
	// look back, what is left of it is given back as found here.
	const logPages = Object.fromEntries(plan.redeliver.map((id) => [id, log.pageOf.get(id) ?? 1]));
	return await readGap(ctx, request, { spans: spansToRead(plan), redeliver: plan.redeliver, logPages }, notes);
}

function unsentNote(spans: number, request: CatchUpRequest): string {
	const read = request.readPosts === false ? 'other events they carried are lost' : 'their posts are read from the feeds instead; other events they carried are lost';
	return `failed deliveries older than Max Age (${request.maxAgeMinutes} min) were not sent again, since the trigger would refuse them (${spans} spans of the log): ${read}`;
}

/**
 * The posts of a gap a look back found (its failed deliveries sent again), or the rest of one an earlier look back
 * could not read: the log no longer shows it. What was read is given whatever stops the rest, which is `unread`.
 */
export async function readGap(ctx: IExecuteFunctions, request: CatchUpRequest, gap: UnreadGap, notes: string[] = []): Promise<CatchUpResult> {
	// The redelivered posts are older than the gap's: they are sent, and acted on, first.
	const { sent: redelivered, left, error: stopped } = await redeliver(ctx, request.subscriptionId, gap, notes);
	if (stopped !== undefined) return { deliveries: [], redelivered, notes, unread: { ...gap, redeliver: left, error: stopped } };
	if (gap.spans.length === 0 || request.readPosts === false) return { deliveries: [], redelivered, notes };
	return { ...(await readGapPosts(ctx, request, gap, notes)), redelivered };
}

/** The posts of a gap's spans, feed after feed; what was read is given whatever stops the rest, which is `unread`. */
async function readGapPosts(ctx: IExecuteFunctions, request: CatchUpRequest, gap: UnreadGap, notes: string[]): Promise<CatchUpResult> {
	let feeds = gap.feeds;
	try {
		feeds ??= (await feedsToRead(ctx, request.feedIds)).map((feed) => ({ feed }));
	} catch (error) {
		return { deliveries: [], redelivered: 0, notes, unread: { spans: gap.spans, error } };
	}
	const found: Array<{ at: number; postId: number; delivery: Delivery }> = [];
	const rest: PendingFeed[] = [];
	let error: unknown;
	for (const [index, pending] of feeds.entries()) {
		let read;
		try {
			read = await gapPostsOf(ctx, pending, gap.spans, notes);
		} catch (failure) {
			// The feeds read so far are given; this one and the rest are read by the next look back.
			error = failure;
			rest.push(...feeds.slice(index));
			break;
		}
		if (read.held) rest.push({ feed: pending.feed, held: read.held });
		for (const post of read.posts) {
			// Stored a moment before the delivery that closes the gap, and in it: not the gap's.
			if (request.delivered?.has(`${String(pending.feed.id)}:${String(post.id)}`)) continue;
			found.push({ at: createdAt(post), postId: Number(post.id), delivery: caughtUpDelivery(pending.feed, post) });
		}
	}
	found.sort((a, b) => a.at - b.at || a.postId - b.postId);
	const deliveries = found.map((d) => d.delivery);
	if (rest.length === 0) return { deliveries, redelivered: 0, notes };
	return { deliveries, redelivered: 0, notes, unread: { spans: gap.spans, feeds: rest, ...(error !== undefined ? { error } : {}) } };
}
