import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/constants';
import { eventList, feedIdList } from '../shared/input';
import { getFeeds, getWebhookEvents } from '../shared/loadOptions';
import type { HeaderBag } from './signature';
import { allowHttpOption } from '../shared/webhookUrl';
import { catchUp, MAX_PAGES_READ, readGap, type CatchUpRequest, type CatchUpResult, type UnreadGap } from './catchUp';
import {
	answerDelivery,
	applySettings,
	catchUpDays,
	deliveredPosts,
	emittedItems,
	gapPostIds,
	type CatchUpSignal,
	sizeRefusal,
	storedSettings,
	takeCatchUpSignal,
	type Delivery,
	type DeliverySettings,
	type SeenState,
	withoutCaughtUp,
} from './delivery';
import { handledInProcess, receivedHere, rememberHandled } from './deliveryMemory';
import { finished, RETRY_AFTER_SECONDS, takePlace } from './inFlight';
import { caughtUpBefore, claimGapPosts, gapClaimsWindow, lookBackAgain, lookBackDue, lookingBack } from './lookBacks';
import {
	carry,
	hasOwnState,
	nodeState,
	openedSeenState,
	owedDue,
	owedGap,
	owedLookBack,
	putOff,
	sealedSeenState,
	settle,
	type NodeState,
	type OwedLookBack,
} from './owed';
import { checkExists, create, deliverySecrets, liveSubscription, remove, triggerKey } from './lifecycle';
import type { SealedState } from './sealedState';
import { claimOnce, databaseStore, firstTimeItems, itemDeliveryId } from './seenDeliveries';

/** Reads a parameter as stored: an expression stays its text, so no expression isolate is taken. */
const RAW = { rawExpressions: true };

/** Deliveries without an id, counted apart from each other while their execution runs. */
let unnamed = 0;

export class SocialAggregatorTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Social Aggregator Trigger',
		name: 'socialAggregatorTrigger',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['trigger'],
		// Not 1: for any webhook node saved at typeVersion exactly 1, n8n evaluates an expression on every request
		// (its Webhook node's old binary option; parseRequestBody in n8n's webhook-helpers), which takes an
		// expression isolate even where n8n acquires them lazily. At 2 a delivery's webhook phase evaluates none
		// (bench/README.md, "Webhook performance").
		version: 2,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		// n8n's node panel shows this for its one "Social Aggregator" entry (action node and trigger)
		description:
			'Manage feeds, posts and their moderation, analytics, users and webhooks of the Social Post Aggregation Service, or start a workflow on its signed webhook events',
		defaults: { name: 'Social Aggregator Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'socialAggregatorApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty: n8n sends the webhookResponse that webhook() returns beside the items, once the
				// execution exists (without it, n8n 2.x answers the text "firstEntryJson").
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'The service delivers events only to HTTPS URLs: n8n must be reachable at a public https:// address (its WEBHOOK_URL setting). Activation fails on a plain HTTP URL unless "Allow HTTP URL (Local Testing Only)" is on. Every delivery is checked against the signing secret the service returned when this trigger registered itself; unsigned or forged requests get 401.',
				name: 'httpsNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName:
					'Each delivery starts the nodes after this trigger once, also when the service retries it after an n8n restart: delivery IDs are kept in n8n\'s database. In queue mode, copies of one delivery that reach two webhook processes at the same instant are checked best effort (a few in a hundred ran twice in tests; see the package README). If this workflow stops receiving events, the service may have disabled its subscription after failed deliveries (n8n away): unpublish and publish the workflow, re-enable it with the Social Aggregator node (Webhook → Re-Enable; the example workflow "Re-enable disabled subscriptions" does this on a schedule), or set it active at the service. The first delivery after that catches up: failed deliveries are sent again and posts added meanwhile are emitted once each (see Catch-Up Span).',
				name: 'onceNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event Names or IDs',
				name: 'events',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getWebhookEvents' },
				required: true,
				default: [],
				description:
					'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
				hint: 'The events that start the workflow. Events the list does not know can be added under Options > Additional Events.',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{
						name: 'One Item per Post',
						value: 'eachPost',
						description:
							'Each post of a post.created event is an item, with its feed, source and event ID; other events are one item each',
					},
					{
						name: 'One Item per Delivery',
						value: 'eachDelivery',
						description: 'Each delivery is one item, as the service sent it (ID, event, occurred_at, data)',
					},
				],
				default: 'eachPost',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Additional Events',
						name: 'additionalEvents',
						type: 'string',
						default: '',
						placeholder: 'post.updated, feed.synced',
						description: 'Comma-separated event names to subscribe to besides those chosen above',
					},
					allowHttpOption,
					{
						displayName: 'Catch-Up Span (Days)',
						name: 'catchUpDays',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 7,
						description:
							'When the subscription stopped delivering (n8n was away and the service disabled it) and is set active again, by publishing this workflow, by Webhook → Re-Enable or at the service: the first delivery after it (the first this n8n receives after it starts or after 5 quiet minutes, also one the filters ignore, or a test delivery) looks back, the deliveries that failed are sent again, and the posts added meanwhile are read from the feeds and emitted once each, marked caught_up. A gap longer than this many days is caught up from its last days only. 0: off.',
					},
					{
						displayName: 'Feed Names or IDs',
						name: 'feedIds',
						type: 'multiOptions',
						typeOptions: { loadOptionsMethod: 'getFeeds' },
						default: [],
						description:
							'Only events of these feeds start the workflow; events that concern no feed always do. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Include Test Deliveries',
						name: 'includeTestDeliveries',
						type: 'boolean',
						default: true,
						description:
							'Whether test deliveries (Send Test, data.test = true) start the workflow, their items marked test. The one the editor requests while listening for a test event is always shown. Either way a test delivery to the published workflow also looks back for a gap to catch up (Catch-Up Span).',
					},
					{
						displayName: 'Max Age (Minutes)',
						name: 'maxAge',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							"Refuse (with 422, starting nothing) a delivery whose signed occurred_at lies more than this many minutes before it arrives, so a captured delivery cannot be replayed later. 0: no limit. Off by default: the service's dashboard can redeliver old events, and its retries after an outage come late.",
					},
					{
						displayName: 'Signature Header',
						name: 'signatureHeader',
						type: 'string',
						default: '',
						placeholder: 'X-Service-Signature',
						description:
							'The header that carries the signature. Empty: the one header named X-…-Signature.',
					},
				],
			},
		],
	};

	methods = {
		loadOptions: { getFeeds, getWebhookEvents },
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove(this);
			},
		},
	};

	/** Verifies, refuses or answers a delivery: what to do with it is decided in answerDelivery(). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const headers = request.headers as HeaderBag;
		// Above version 1 n8n reads the body only for the content types it parses (JSON among them); one whose
		// Content-Length is over the cap stays unread.
		const readable = sizeRefusal(headers, undefined) === undefined;
		if (request.rawBody === undefined && readable && typeof request.readRawBody === 'function') await request.readRawBody();
		const manual = this.getMode() === 'manual';
		const key = triggerKey(this);
		const answer = answerDelivery({
			headers,
			rawBody: request.rawBody,
			secrets: deliverySecrets(this, manual),
			parameter: (name, fallback) => this.getNodeParameter(name, fallback, RAW),
			evaluate: (name, fallback) => this.getNodeParameter(name, fallback),
			manual,
			handledBefore: (id) => handledInProcess(key, id),
			lookBackDue: () => lookBackDue(key),
		});
		const response = this.getResponseObject();
		// The static data this process read, sealed, for an execution that may look back (in queue mode it runs without it).
		const handing = answer.catchUp !== undefined || (answer.items !== undefined && answer.items.length > 0 && owedLookBack(this) !== undefined);
		const items = emittedItems(answer, handing ? await sealedForExecution(this) : undefined);
		if (items?.length && !manual) {
			// Executions of this trigger pile up in this process: the sender retries later instead.
			if (!(await takePlace(key, answer.id ?? `(no id) ${++unnamed}`, request.rawBody?.length ?? 0))) {
				this.logger.warn(
					`Social Aggregator Trigger: delivery ${answer.id ?? '(no id)'} answered 503: this n8n is still running earlier deliveries of this trigger`,
				);
				if (answer.catchUp) lookBackAgain(key);
				response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
				response.status(503).json({
					error: { code: 'busy', message: `Busy with earlier deliveries; retry after ${RETRY_AFTER_SECONDS} s` },
				});
				return { noWebhookResponse: true };
			}
		}
		if (answer.catchUp) lookingBack(key, kickTime(answer.catchUp));
		if (answer.log) this.logger[answer.log.level](answer.log.message);
		if (items?.length) {
			// Remembered as handled in execute(), once n8n has an execution: if it fails to start one (and answers 500),
			// the retry must run.
			return { workflowData: [items.map((json) => ({ json }))], webhookResponse: answer.body };
		}
		// Starts nothing: handled here.
		if (answer.remember !== undefined) rememberHandled(key, answer.remember);
		if (answer.status === 200) return { webhookResponse: answer.body };
		response.status(answer.status).json(answer.body);
		return { noWebhookResponse: true };
	}

	/**
	 * Runs where the execution runs (a worker in queue mode): applies settings given as expressions,
	 * then drops deliveries n8n's database says were acted on.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { items: input, signal, signalAt, sealed } = takeCatchUpSignal(this.getInputData());
		const manual = this.getMode() === 'manual';
		const key = triggerKey(this);
		const items = deferredSettings(this) ? applyEvaluatedSettings(this, input, manual) : input;
		if (manual) return [items.map((item, index) => ({ ...item, pairedItem: item.pairedItem ?? { item: index } }))];
		const ids = input.map((item) => itemDeliveryId(item.json)).filter((id): id is string => id !== undefined);
		if (signal) ids.push(signal.id);
		try {
			const state = nodeState(this, await handedState(this, sealed));
			const owed = owedLookBack(state);
			const run = lookBackToRun(this, { state, signal, owed, input });
			if (run) lookingBack(key, kickTime(run.kick));
			// The gap's posts are older than the delivery's own: they come first.
			const delivered = withoutCaughtUpHere(key, items, owed !== undefined);
			const caughtUp = run ? await lookBackItems(this, key, { ...run, state }, Math.max(signalAt, 0), input) : [];
			// A delivery this process received is checked here alone: no other process can be checking it.
			const { items: kept, duplicates } = await firstTimeItems([...caughtUp, ...delivered], databaseStore(this), key, {
				receivedHere: (id) => receivedHere(key, id),
				warn: (message) => this.logger.warn(message),
			});
			if (duplicates.length > 0) {
				this.logger.info(
					`Social Aggregator Trigger: deliveries ${duplicates.join(', ')} were acted on before; their items are not passed on`,
				);
			}
			// Handled (passed on, or found acted on before): a copy that reaches this process is answered as one.
			for (const id of ids) rememberHandled(key, id);
			return [kept];
		} finally {
			finished(key, ids);
		}
	}
}

/** The credential's API key: what seals the static data webhook() hands its execution (sealedState.ts). */
async function credentialKey(ctx: IWebhookFunctions | IExecuteFunctions): Promise<string> {
	const { apiKey } = await ctx.getCredentials<{ apiKey?: string }>(CREDENTIAL_NAME);
	return typeof apiKey === 'string' ? apiKey : '';
}

/**
 * The static data webhook() read, sealed for its execution; none when the credential cannot be read (the delivery
 * still runs with its own posts: a worker then does not look back).
 */
async function sealedForExecution(ctx: IWebhookFunctions): Promise<SealedState | undefined> {
	try {
		return sealedSeenState(ctx, await credentialKey(ctx));
	} catch {
		ctx.logger.warn("Social Aggregator Trigger: its credential could not be read, so the trigger's state is not handed to the execution");
		return undefined;
	}
}

/**
 * The static data webhook() handed on, opened: read only where n8n gave the execution none (a worker on n8n 2.x). One
 * that cannot be opened (the credential's key changed since the delivery came, or cannot be read) is not read, and
 * nothing is written over the static data: this execution does not look back.
 */
async function handedState(ctx: IExecuteFunctions, sealed: unknown): Promise<SeenState | undefined> {
	if (sealed === undefined || hasOwnState(ctx)) return undefined;
	const seen = openedSeenState(sealed, await credentialKey(ctx).catch(() => ''));
	if (!seen) {
		ctx.logger.warn(
			"Social Aggregator Trigger: the trigger's state handed to this execution could not be opened with its credential (its API key changed since the delivery came?): this execution does not look back",
		);
	}
	return seen;
}

/**
 * The delivery's items without the posts a look back here caught up already (lately a look back ran: a delivery made
 * since the re-enable may reach n8n after it); the others counted as carried, so a look back leaves them out.
 */
function withoutCaughtUpHere(key: string, items: INodeExecutionData[], owed: boolean): INodeExecutionData[] {
	const window = gapClaimsWindow(key, owed);
	if (!window) return items;
	return items.flatMap((item) => {
		const taken = caughtUpBefore(key, gapPostIds(item.json, window));
		const json = taken.size > 0 ? withoutCaughtUp(item.json, taken) : item.json;
		return json ? [{ ...item, json }] : [];
	});
}

/** When the delivery that looks back occurred (the service's clock), else now. */
function kickTime(kick: CatchUpSignal): number {
	const at = typeof kick.occurred_at === 'string' ? Date.parse(kick.occurred_at) : NaN;
	return Number.isNaN(at) ? Date.now() : at;
}

/** The settings as evaluated for item `index`. */
function evaluatedSettings(ctx: IExecuteFunctions, index: number): DeliverySettings {
	return {
		events: ctx.getNodeParameter('events', index, []),
		output: ctx.getNodeParameter('output', index, 'eachPost'),
		options: (ctx.getNodeParameter('options', index, {}) as DeliverySettings['options']) ?? {},
	};
}

/** The look back an execution runs: the one owed (owed.ts), or one the delivery asks for afresh. */
interface LookBackRun {
	kick: CatchUpSignal;
	owed?: OwedLookBack;
}

/** A look back and where its execution keeps what is owed (owed.ts, `nodeState`). */
type LookBackAt = LookBackRun & { state: NodeState };

/**
 * The look back this execution runs, decided from n8n's database wherever the delivery landed: the one owed once its
 * wait is over (or a test delivery asks), else a fresh one the delivery asks for (the first after a quiet spell in the
 * process that received it, or a test delivery). One owed and not due is not started afresh: it carries the delivery's
 * posts stored before its kick, and the execution says why it waits.
 */
function lookBackToRun(
	ctx: IExecuteFunctions,
	{ state, signal, owed, input }: { state: NodeState; signal?: CatchUpSignal; owed?: OwedLookBack; input: INodeExecutionData[] },
	now = Date.now(),
): LookBackRun | undefined {
	if (!owed) return signal ? { kick: signal } : undefined;
	if (owedDue(owed, now, signal?.test === true)) return { kick: owed.kick, owed };
	carry(state, owed, deliveredPosts(input.map((item) => item.json), kickTime(owed.kick) + 1_000));
	const waiting = `put off until ${new Date(owed.retryAt).toISOString()} after ${owed.tries} failed tries: ${owed.reason}`;
	ctx.customData?.set('catchUp', waiting.slice(0, 255));
	return undefined;
}

/**
 * The items of a look back (its kick, the posts deliveries carried that it leaves out, what of its gap it found). One
 * try of a look back owed at a time, whichever process runs it; a fresh one claims its gap (catchUp.ts). What it could
 * not do (an error, or a gap longer than a look back reads) is owed (owed.ts), tried again by a later execution in any
 * process, after a wait that doubles with each failure: the delivery goes on with its own items and what was read, and
 * the execution's custom data and n8n's log say what was put off and why.
 */
async function lookBackItems(
	ctx: IExecuteFunctions,
	key: string,
	{ kick, owed, state }: LookBackAt,
	signalAt: number,
	input: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const delivered = new Set([...(owed?.delivered ?? []), ...deliveredPosts(input.map((item) => item.json), kickTime(kick) + 1_000)]);
	const store = databaseStore(ctx);
	if (owed && !(await claimOnce(store, key, `try:${kick.id}:${owed.tries}:${owed.retryAt}`))) return [];
	const putOffAgain = (unread: UnreadGap | undefined, error: unknown) => {
		const reason = error === undefined
			? `feeds ${(unread?.feeds ?? []).map((pending) => String(pending.feed.id)).join(', ')} have more than ${MAX_PAGES_READ} pages of the gap; the next delivery reads on`
			: error instanceof Error ? error.message : String(error);
		const next = putOff(state, { kick, delivered, gap: unread, tries: owed?.tries ?? 0, failed: error !== undefined, reason });
		const when = error === undefined ? 'to the next delivery' : `to the first delivery after ${new Date(next.retryAt).toISOString()} (try ${next.tries + 1})`;
		const what = error === undefined ? 'the rest of the look back' : 'the look back';
		ctx.logger.warn(`Social Aggregator Trigger: ${what} for missed deliveries (from delivery ${kick.id}) is put off ${when}: ${reason}`);
		ctx.customData?.set('catchUp', `${error === undefined ? 'the rest ' : ''}put off ${when}: ${reason}`.slice(0, 255));
	};
	try {
		const claimGap = async (gap: string) => await claimOnce(store, key, `gap:${gap}`);
		const { items, unread } = await caughtUpItems(ctx, { kick, signalAt, delivered, gap: owedGap(owed), claimGap, nodeData: state.read() });
		if (unread) putOffAgain(unread, unread.error);
		else settle(state);
		// Not the posts a delivery here carried meanwhile (one made since the re-enable, received after this one).
		const kept = claimGapPosts(key, items.map((item) => String(item.json.event_id ?? item.json.id)));
		return items.filter((item) => kept.has(String(item.json.event_id ?? item.json.id)));
	} catch (error) {
		putOffAgain(owedGap(owed), error);
		return [];
	}
}

/**
 * The items of what the subscription missed (catchUp.ts), shaped and filtered like deliveries; what could not be
 * caught up is logged, what of a gap found is still to read given back. Run in the execution of the delivery that
 * looked back.
 */
async function caughtUpItems(
	ctx: IExecuteFunctions,
	lookBack: { kick: CatchUpSignal; signalAt: number; delivered: Set<string>; gap?: UnreadGap; claimGap: CatchUpRequest['claimGap']; nodeData: IDataObject },
): Promise<{ items: INodeExecutionData[]; unread?: CatchUpResult['unread'] }> {
	const subscription = liveSubscription(lookBack.nodeData);
	if (!subscription) return { items: [] };
	const subscriptionId = subscription.id;
	const settings = storedSettings((name, fallback) => ctx.getNodeParameter(name, 0, fallback, RAW)) ?? evaluatedSettings(ctx, 0);
	const { kick, signalAt, delivered, gap, claimGap } = lookBack;
	const maxAge = Number(settings.options.maxAge ?? 0);
	const request = {
		subscriptionId,
		kick: { id: kick.id, at: kickTime(kick) },
		spanDays: catchUpDays(settings.options.catchUpDays),
		feedIds: feedIdList(settings.options.feedIds),
		delivered,
		readPosts: passesPostCreated(settings),
		maxAgeMinutes: Number.isFinite(maxAge) && maxAge > 0 ? maxAge : 0,
		subscriptionCreatedAt: subscription.createdAt,
		claimGap,
	};
	const result = gap ? await readGap(ctx, request, gap) : await catchUp(ctx, request);
	for (const note of result.notes) ctx.logger.warn(`Social Aggregator Trigger: catch-up of subscription ${subscriptionId}: ${note}`);
	// Most look backs find nothing: only a catch-up that did something is worth an info line.
	const level = result.redelivered > 0 || result.deliveries.length > 0 ? 'info' : 'debug';
	ctx.logger[level](
		`Social Aggregator Trigger: catch-up of subscription ${subscriptionId}: ${result.redelivered} failed deliveries sent again, ${result.deliveries.length} posts of the gap read`,
	);
	const items = result.deliveries.flatMap((delivery) =>
		applySettings(delivery, settings, false).items.map((json) => ({ json, pairedItem: { item: signalAt } })),
	);
	return { items, unread: result.unread };
}

/** Whether the trigger lets `post.created` through (no events chosen: every event). */
function passesPostCreated(settings: DeliverySettings): boolean {
	const events = eventList(settings.events, settings.options.additionalEvents);
	return events.length === 0 || events.includes('post.created');
}

/** Whether a setting is an expression, so webhook() emitted each delivery whole for execute() to shape. */
function deferredSettings(ctx: IExecuteFunctions): boolean {
	return storedSettings((name, fallback) => ctx.getNodeParameter(name, 0, fallback, RAW)) === undefined;
}

/** The items each delivery gives under settings evaluated for it (its own item index). */
function applyEvaluatedSettings(ctx: IExecuteFunctions, input: INodeExecutionData[], manual: boolean): INodeExecutionData[] {
	return input.flatMap((item, index) => {
		const { items, ignored } = applySettings(item.json as Delivery, evaluatedSettings(ctx, index), manual);
		if (ignored) ctx.logger.debug(`Social Aggregator Trigger: delivery ${String(item.json.id ?? '(no id)')} ignored: ${ignored}`);
		return items.map((json) => ({ json, pairedItem: { item: index } }));
	});
}
