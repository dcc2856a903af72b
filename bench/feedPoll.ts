/**
 * B7: what a Feed Trigger poll costs against the size of the window (`npm run bench:feed`).
 *
 * For windows of 100, 1,000, 10,000 and 50,000 posts (25 hours of a feed collecting a twenty-fifth of that an hour,
 * listed pinned first then by platform time, one post pinned), measured in one run:
 * - the Feed Trigger's poll (`pollFeeds`, the code the node runs): requests of a quiet poll and of a poll with 100
 *   new posts, and the static data it keeps (JSON bytes);
 * - beside it, what a user builds by hand: Schedule Trigger → HTTP Request over a fixed number of pages → Remove
 *   Duplicates ("Remove Items Processed in Previous Executions", by `id`). To miss no post, its pages must cover the
 *   window (ceil(window / 100) a poll, every poll); what it keeps is n8n's own record of each value seen (the
 *   md5 of the value in base 64, as n8n's deduplication helper writes it, up to its History Size of 10,000). Its
 *   requests are counted against the same list; its store is built with n8n's hashing, not read from n8n's database.
 * Prints one Markdown table (bench/README.md#b7).
 */
import { createHash } from 'node:crypto';

import { pollFeeds, type FeedPollState } from '../nodes/SocialAggregatorFeedTrigger/feedPoll';
import { FeedListStub } from '../test/unit/support/feedListStub';

const HOUR = 3_600_000;
const WINDOWS = [100, 1_000, 10_000, 50_000];
const POLLS = 5;
const HISTORY_SIZE = 10_000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A feed whose last 25 hours hold `window` posts, evenly, one of them pinned. */
function feedOf(window: number): FeedListStub {
	const api = new FeedListStub('platformPinnedFirst');
	const step = (25 * HOUR) / window;
	for (let i = 0; i < window; i++) {
		api.now += step - 1000;
		api.add(1, 60_000);
	}
	api.pin(api.posts[Math.floor(window / 2)].id);
	return api;
}

async function triggerSide(window: number) {
	const api = feedOf(window);
	let state: FeedPollState = {};
	const poll = async () => {
		const result = await pollFeeds('', ['1'], state, (_feed, page, perPage) => api.fetch(page, perPage), { now: api.now });
		state = JSON.parse(JSON.stringify(result.state)) as FeedPollState;
		return result;
	};
	await poll();
	const quiet: number[] = [];
	const busy: number[] = [];
	let emitted = 0;
	for (let i = 0; i < POLLS; i++) {
		api.now += 60_000;
		quiet.push((await poll()).requests);
		const step = (25 * HOUR) / window;
		for (let n = 0; n < 100; n++) {
			api.now += Math.max(1, step - 1000);
			api.add(1, 60_000);
		}
		const result = await poll();
		busy.push(result.requests);
		emitted += result.posts.length;
	}
	return { quiet: median(quiet), busy: median(busy), bytes: JSON.stringify(state).length, emitted, expected: POLLS * 100 };
}

/** The hand-built side: every page of the window each poll, and n8n's record of the IDs seen. */
async function handBuiltSide(window: number) {
	const api = feedOf(window);
	const pages = Math.ceil(window / 100);
	const seen: string[] = [];
	const known = new Set<string>();
	const poll = async () => {
		let requests = 0;
		let fresh = 0;
		for (let page = 1; page <= pages; page++) {
			const answer = await api.fetch(page, 100);
			requests++;
			for (const post of answer.posts) {
				const hash = createHash('md5').update(String(post.id)).digest('base64');
				if (known.has(hash)) continue;
				known.add(hash);
				seen.push(hash);
				fresh++;
			}
		}
		while (seen.length > HISTORY_SIZE) known.delete(seen.shift() as string);
		return { requests, fresh };
	};
	await poll();
	const quiet: number[] = [];
	const busy: number[] = [];
	let emitted = 0;
	for (let i = 0; i < POLLS; i++) {
		const still = await poll();
		quiet.push(still.requests);
		emitted += still.fresh;
		const step = (25 * HOUR) / window;
		for (let n = 0; n < 100; n++) {
			api.now += Math.max(1, step - 1000);
			api.add(1, 60_000);
		}
		const result = await poll();
		busy.push(result.requests);
		emitted += result.fresh;
	}
	return { quiet: median(quiet), busy: median(busy), bytes: JSON.stringify({ mode: 'entries', data: seen }).length, emitted };
}

async function main(): Promise<void> {
	const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
	const rows = [
		'| posts in the window | Feed Trigger: quiet poll | with 100 new | static data | emitted of 500 new | hand-built: quiet poll | with 100 new | n8n record | emitted of 500 new | requests, hand-built ÷ trigger (quiet) |',
		'|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
	];
	for (const window of WINDOWS) {
		const ours = await triggerSide(window);
		const theirs = await handBuiltSide(window);
		rows.push(
			`| ${window.toLocaleString('en')} | ${ours.quiet} | ${ours.busy} | ${kb(ours.bytes)} | ${ours.emitted} | ${theirs.quiet} | ${theirs.busy} | ${kb(theirs.bytes)} | ${theirs.emitted} | ${(theirs.quiet / ours.quiet).toFixed(1)}x |`,
		);
	}
	process.stdout.write(`${rows.join('\n')}\n`);
}

void main();
