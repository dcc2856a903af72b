import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { plural } from '../../../../shared/errors';
import { retryTiming } from '../../../../shared/retry';
import { preparePoll, requestIdField, type PollResult } from './getStatus.operation';

const properties: INodeProperties[] = [
	requestIdField,
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollInterval',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 2,
		description: 'Seconds between polls: the poll_interval that API Key → Request returned',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 600,
		description:
			'How long to wait for the approval before giving up with an error. A request expires after about 10 minutes.',
	},
];

const displayOptions = { show: { resource: ['apiKey'], operation: ['waitForApproval'] } };

export const description = updateDisplayOptions(displayOptions, properties);

const MIN_POLL_INTERVAL_MS = 250;

/** Polls until issued, gone or timed out. Time counts on the clock and as time slept, so a replaced sleep ends too. */
export async function waitForApproval(options: {
	poll: () => Promise<PollResult>;
	sleep: (ms: number) => Promise<void>;
	now: () => number;
	intervalMs: number;
	timeoutMs: number;
}): Promise<{ result: PollResult; polls: number; waitedMs: number; timedOut: boolean }> {
	const started = options.now();
	// A pause too short would turn polling into a busy loop.
	const intervalMs = Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs);
	let slept = 0;
	let polls = 0;
	for (;;) {
		const result = await options.poll();
		polls++;
		const waitedMs = Math.max(slept, options.now() - started);
		if (result.state !== 'pending') return { result, polls, waitedMs, timedOut: false };
		const remaining = options.timeoutMs - waitedMs;
		if (remaining <= 0) return { result, polls, waitedMs, timedOut: true };
		const pause = Math.max(0, Math.min(intervalMs, remaining));
		await options.sleep(pause);
		slept += pause;
	}
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const { requestId, poll } = await preparePoll.call(this, itemIndex);
	const intervalSeconds = Number(this.getNodeParameter('pollInterval', itemIndex, 2));
	const timeoutSeconds = Number(this.getNodeParameter('timeout', itemIndex, 600));
	const intervalMs = Number.isFinite(intervalSeconds) && intervalSeconds > 0 ? intervalSeconds * 1000 : 2000;
	const timeoutMs = Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds * 1000 : 600_000;

	const { result, polls, waitedMs, timedOut } = await waitForApproval({
		poll,
		sleep: async (ms) => await retryTiming.sleep(ms),
		now: () => retryTiming.now(),
		intervalMs,
		timeoutMs,
	});

	if (timedOut) {
		throw new NodeOperationError(
			node,
			`No approval for request ${requestId} within ${Math.round(timeoutMs / 1000)} s`,
			{
				itemIndex,
				description: `Polled ${plural(polls, 'time')} over ${Math.round(waitedMs / 1000)} s; the request was still pending. The account owner must open its authorization_url and approve it; a longer Timeout waits longer, and Get Authorization Status asks once.`,
			},
		);
	}
	if (result.state === 'gone') {
		throw new NodeOperationError(node, `The authorization request ${requestId} is gone`, {
			itemIndex,
			description: `${String(result.item.message)} Request a new key with API Key → Request.`,
		});
	}
	return [result.item];
}
