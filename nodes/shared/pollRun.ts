import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { retryTiming } from './retry';
import { keyBudget } from './runBudget';

// What both polling triggers do around their own reading and remembering: a poll's outcomes, a manual run, the key's
// budget, the memory written back, their log lines and their output.

/** Posts in a Manual Run, unless the option says otherwise. */
export const DEFAULT_TEST_POSTS = 5;

/**
 * What one poll did with one source (a feed, a platform). A trigger says what it keeps of a recorded or a held
 * source; a trigger whose sources cannot fail leaves `failed` out.
 */
export type PollOutcome<Post, Recorded extends object, Held extends object> =
	/** No memory yet: where the source stands is recorded, nothing emitted. */
	| ({ kind: 'recorded' } & Recorded)
	/** Read down to what it knew: these posts are new. */
	| { kind: 'emitted'; posts: Post[] }
	/** More new posts than the pages allowed: the next polls read on (a trigger says what it keeps or emits of the posts read). */
	| ({ kind: 'held' } & Held)
	/** The budget was spent before the source was asked: its memory stays as it was. */
	| { kind: 'notAsked' }
	/** It failed: its memory stays as it was, and the next poll reads again where it stood. */
	| { kind: 'failed' };

/** n8n runs poll() for Fetch Test Event too, with the mode 'manual': such a run leaves the memory as it is. */
export function isManualRun(ctx: IPollFunctions): boolean {
	return ctx.getMode() === 'manual';
}

/**
 * What a manual run shows: the newest Posts in a Manual Run of one read of every source's newest page. The trigger
 * reads those pages (asking each for no more than `count` posts where it can) and gives their posts oldest first,
 * with whatever else it reports of the read.
 */
export async function newestPosts<Read extends { posts: unknown[] }>(
	options: IDataObject,
	readNewestPages: (count: number) => Promise<Read>,
): Promise<Read> {
	const count = Number(options.testPosts ?? DEFAULT_TEST_POSTS);
	const read = await readNewestPages(count);
	return { ...read, posts: count > 0 ? read.posts.slice(Math.max(0, read.posts.length - count)) : [] };
}

/**
 * Requests the key's rate limit allows now (undefined: not known, no bound): a poll reads no more pages than that, and
 * what it leaves is read by the next ones.
 */
export async function requestsLeftNow(ctx: IPollFunctions): Promise<number | undefined> {
	return (await keyBudget(ctx, undefined))?.ledger.left(retryTiming.now());
}

/** What the trigger remembered after its last poll: the node's static data. */
export function savedState<State extends IDataObject>(ctx: IPollFunctions): State {
	return ctx.getWorkflowStaticData('node') as State;
}

/** The memory a poll leaves, written over the saved one in place: n8n saves the object it handed out, after the items are emitted. */
export function replaceSavedState(saved: IDataObject, next: IDataObject): void {
	for (const key of Object.keys(saved)) delete saved[key];
	Object.assign(saved, next);
}

/** Log lines that start with the trigger's name, so that n8n's log says which trigger wrote them. */
export function triggerLog(ctx: IPollFunctions, trigger: string) {
	return {
		info: (text: string) => ctx.logger.info(`${trigger}: ${text}`),
		warn: (text: string) => ctx.logger.warn(`${trigger}: ${text}`),
	};
}

/** A poll's items as n8n takes them: one output, or null when there are none, so that no execution starts. */
export function pollOutput(items: INodeExecutionData[]): INodeExecutionData[][] | null {
	return items.length > 0 ? [items] : null;
}

/** The polls running in this process, by workflow and node: n8n starts a poll at each tick, whether or not the last ended. */
const pollsRunning = new Set<string>();

/**
 * A poll that starts while the same trigger's previous poll still runs (waiting on a 429 or a retry past the next
 * tick) does nothing and says so: both would read the same memory and emit the same posts. n8n runs a workflow's
 * polls in one process (the main one, or the leader in queue mode), so a set in this process sees every one.
 */
export async function onePollAtATime(
	ctx: IPollFunctions,
	trigger: string,
	poll: () => Promise<INodeExecutionData[][] | null>,
): Promise<INodeExecutionData[][] | null> {
	const key = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id ?? ctx.getNode().name}`;
	if (pollsRunning.has(key)) {
		triggerLog(ctx, trigger).info('the previous poll is still running: this one is skipped, the next reads on from where that one ends');
		return null;
	}
	pollsRunning.add(key);
	try {
		return await poll();
	} finally {
		pollsRunning.delete(key);
	}
}
