import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UnreadGap } from './catchUp';
import type { SeenState } from './delivery';
import { seal, unseal, type SealedState } from './sealedState';
import { isObject } from '../shared/utils';

// What the trigger owes, kept where every n8n process of the workflow reads it and a restart does not wipe it: the
// node's static data in n8n's database (docs/exactly-once.md#where-the-catch-up-lives). Written only from execute():
// n8n saves static data an execution changed when it ends (in queue mode the worker that ran it), and drops what
// webhook() writes when that starts an execution. An execution that changes nothing here writes nothing, so one that
// runs beside it cannot overwrite it (n8n saves the whole static data, the last writer winning).

/**
 * After a first failure the next delivery tries again at once (most failures pass: a 503 burst, a deploy); after the
 * second it waits this long, doubling with each failure up to MAX_WAIT_MS, so a look back that keeps failing (a key
 * that expired: every read 401) costs a delivery at most every hour.
 */
const FIRST_WAIT_MS = 60_000;
const MAX_WAIT_MS = 3_600_000;

/**
 * Posts (`<feed>:<post>`) a look back owed carries at most: only those stored before its kick can be the gap's, and
 * those come from the few deliveries made around the re-enable.
 */
const MAX_CARRIED = 1_000;

/** A look back that failed or could not finish: tried again by an execution in any process once `retryAt` is past. */
export interface OwedLookBack extends IDataObject {
	/** The delivery it is counted from: the first that looked back. */
	kick: { id: string; occurred_at: string | null };
	/** Posts deliveries carried that were stored before the kick: theirs, never read as the gap's. */
	delivered: string[];
	/** What of the gap it found is still to do; absent: the gap is not found yet (the log still shows it). */
	gap?: IDataObject;
	/** Tries that failed, and when the next may run (ms). */
	tries: number;
	retryAt: number;
	/** Why the last try stopped. */
	reason: string;
}

const KEY = 'owedLookBack';

type StaticData = Pick<IExecuteFunctions, 'getWorkflowStaticData'>;

/** The node's static data an execution reads what is owed from, and writes it to (`nodeState`). */
export interface NodeState {
	read(): IDataObject;
	write(): IDataObject;
}

const stateOf = (where: NodeState | StaticData): NodeState =>
	'read' in where ? where : { read: () => where.getWorkflowStaticData('node'), write: () => where.getWorkflowStaticData('node') };

/** A copy of static data without n8n's change mark. */
function plain(data: IDataObject): IDataObject {
	return Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(data)) as IDataObject).filter(([key]) => !key.startsWith('__')));
}

/**
 * The trigger's static data as webhook() reads it (in queue mode a webhook process reads the workflow from n8n's
 * database for each request), handed to the execution when it may need it: a look back due or owed.
 */
function seenState(ctx: StaticData): SeenState {
	const global = plain(ctx.getWorkflowStaticData('global'));
	return { node: plain(ctx.getWorkflowStaticData('node')), ...(Object.keys(global).length > 0 ? { global } : {}) };
}

/** `seenState` sealed with the credential's API key (sealedState.ts): the execution's record holds no secret in the clear. */
export function sealedSeenState(ctx: StaticData, apiKey: string): SealedState {
	return seal(seenState(ctx), apiKey);
}

/** The static data webhook() sealed, opened with the credential's API key; undefined when it cannot be. */
export function openedSeenState(sealed: unknown, apiKey: string): SeenState | undefined {
	const opened = unseal(sealed, apiKey);
	return opened && isObject(opened.node) ? (opened as SeenState) : undefined;
}

/** Whether n8n gave the execution the node's static data (not a worker on n8n 2.x): it holds the subscription. */
export function hasOwnState(ctx: StaticData): boolean {
	return ctx.getWorkflowStaticData('node').subscriptions !== undefined;
}

/** Writes `from`'s keys that `into` lacks. */
function restore(into: IDataObject, from: IDataObject): void {
	for (const [key, value] of Object.entries(from)) if (into[key] === undefined) into[key] = value;
}

/**
 * The node's static data for an execution. Where n8n gave it none while the webhook process read some (`seen`: a
 * worker on n8n 2.x, which gets a queued execution without the workflow's static data and saves what the execution
 * holds at its end, whole), it reads `seen`; its first change writes `seen` (and the global static data) back first,
 * so that the save keeps the subscription, its secret among it. Nothing is written while nothing changes.
 */
export function nodeState(ctx: StaticData, seen?: SeenState): NodeState {
	const own = ctx.getWorkflowStaticData('node');
	if (!seen || hasOwnState(ctx) || seen.node.subscriptions === undefined) return stateOf(ctx);
	let restored = false;
	return {
		read: () => (restored ? own : seen.node),
		write: () => {
			if (!restored) {
				restore(own, seen.node);
				if (seen.global) restore(ctx.getWorkflowStaticData('global'), seen.global);
				restored = true;
			}
			return own;
		},
	};
}

/** The look back the trigger owes, as the execution's static data holds it. */
export function owedLookBack(where: NodeState | StaticData): OwedLookBack | undefined {
	const owed = stateOf(where).read()[KEY];
	return isObject(owed) && isObject(owed.kick) && typeof owed.kick.id === 'string' ? (owed as OwedLookBack) : undefined;
}

/** The gap an owed look back found, as catchUp.ts reads it. */
export function owedGap(owed: OwedLookBack | undefined): UnreadGap | undefined {
	return owed?.gap as UnreadGap | undefined;
}

/** How long after its `tries`-th failure a look back waits: nothing after the first, then 1 min, doubling, at most 1 h. */
function retryWait(tries: number): number {
	return tries <= 1 ? 0 : Math.min(FIRST_WAIT_MS * 2 ** (tries - 2), MAX_WAIT_MS);
}

/** Whether an owed look back may be tried at `now`: its wait is over, or someone asked (a test delivery, a re-enable). */
export function owedDue(owed: OwedLookBack, now: number, asked: boolean): boolean {
	return asked || now >= owed.retryAt;
}

/** The newest `MAX_CARRIED` of `posts`, repeats once. */
function capped(posts: Iterable<string>): string[] {
	return [...new Set(posts)].slice(-MAX_CARRIED);
}

/**
 * Owes a look back again after a try that stopped (`reason`), with what of the gap is still to do (only what the next
 * try reads: not the error that stopped it), and one more failure counted when an error stopped it (a page cap does
 * not: the next delivery reads on at once).
 */
export function putOff(
	where: NodeState | StaticData,
	lookBack: { kick: OwedLookBack['kick']; delivered: Iterable<string>; gap?: UnreadGap; tries: number; failed: boolean; reason: string },
	now = Date.now(),
): OwedLookBack {
	const { gap } = lookBack;
	const kept = gap && {
		spans: gap.spans,
		...(gap.feeds ? { feeds: gap.feeds } : {}),
		...(gap.redeliver?.length ? { redeliver: gap.redeliver, ...(gap.logPages ? { logPages: gap.logPages } : {}) } : {}),
	};
	const tries = lookBack.failed ? lookBack.tries + 1 : lookBack.tries;
	const owed: OwedLookBack = {
		kick: lookBack.kick,
		delivered: capped(lookBack.delivered),
		...(kept ? { gap: kept as unknown as IDataObject } : {}),
		tries,
		retryAt: lookBack.failed ? now + retryWait(tries) : now,
		reason: lookBack.reason.slice(0, 500),
	};
	stateOf(where).write()[KEY] = owed;
	return owed;
}

/** Adds posts a delivery carried (stored before the kick) to what the owed look back leaves out; writes only when new. */
export function carry(where: NodeState | StaticData, owed: OwedLookBack, posts: Iterable<string>): void {
	const known = new Set(owed.delivered);
	const added = [...posts].filter((post) => !known.has(post));
	if (added.length === 0) return;
	stateOf(where).write()[KEY] = { ...owed, delivered: capped([...owed.delivered, ...added]) };
}

/** The look back owed is done: nothing owed any more (a write only when something was). */
export function settle(where: NodeState | StaticData): void {
	const state = stateOf(where);
	if (state.read()[KEY] !== undefined) delete state.write()[KEY];
}
