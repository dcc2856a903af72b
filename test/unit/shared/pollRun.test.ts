import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import {
	isManualRun,
	newestPosts,
	onePollAtATime,
	pollOutput,
	replaceSavedState,
	requestsLeftNow,
	savedState,
	triggerLog,
} from '../../../nodes/shared/pollRun';

/** The parts of n8n's poll functions the core reads: the mode, the static data, the credential and the logger. */
function pollContext(options: { mode?: string; staticData?: IDataObject; credentials?: IDataObject } = {}) {
	const logs: Array<[string, string]> = [];
	const context = {
		getMode: () => options.mode ?? 'trigger',
		getWorkflow: () => ({ id: 'w1' }),
		getNode: () => ({ id: 'n1', name: 'Feed Trigger' }),
		getWorkflowStaticData: (type: string) => (type === 'node' ? options.staticData : undefined),
		getCredentials: async () => {
			if (!options.credentials) throw new Error('no credential');
			return options.credentials;
		},
		logger: {
			info: (message: string) => logs.push(['info', message]),
			warn: (message: string) => logs.push(['warn', message]),
		},
	} as unknown as IPollFunctions;
	return { context, logs };
}

describe('a manual run', () => {
	it('is a poll in the mode manual, which Fetch Test Event runs', () => {
		expect(isManualRun(pollContext({ mode: 'manual' }).context)).toBe(true);
		expect(isManualRun(pollContext({ mode: 'trigger' }).context)).toBe(false);
	});

	it('reads the newest pages for Posts in a Manual Run (5 unless set) and shows the newest of them, oldest first', async () => {
		const asked: number[] = [];
		const read = async (count: number) => {
			asked.push(count);
			return { posts: [1, 2, 3, 4, 5, 6, 7], failures: ['X'] };
		};
		expect(await newestPosts({}, read)).toEqual({ posts: [3, 4, 5, 6, 7], failures: ['X'] });
		expect(await newestPosts({ testPosts: 2 }, read)).toEqual({ posts: [6, 7], failures: ['X'] });
		expect(await newestPosts({ testPosts: 10 }, read)).toEqual({ posts: [1, 2, 3, 4, 5, 6, 7], failures: ['X'] });
		expect(asked).toEqual([5, 2, 10]);
	});

	it('shows no posts for a count of none, and still what else the read reports', async () => {
		const read = async () => ({ posts: [1, 2], failures: ['X'] });
		expect(await newestPosts({ testPosts: 0 }, read)).toEqual({ posts: [], failures: ['X'] });
		expect(await newestPosts({ testPosts: -1 }, read)).toEqual({ posts: [], failures: ['X'] });
	});
});

describe("the key's budget for a poll", () => {
	it("is what the key's ledger allows now, from the credential", async () => {
		const credentials = { apiKey: 'key-poll-run-budget', baseUrl: 'https://api.example.com/v1', requestsPerHour: 7 };
		expect(await requestsLeftNow(pollContext({ credentials }).context)).toBe(7);
	});

	it('is not known when the credential cannot be read', async () => {
		expect(await requestsLeftNow(pollContext().context)).toBeUndefined();
	});
});

describe('the memory between polls', () => {
	it("is the node's static data, written over in place: keys the new memory lacks are gone", () => {
		const staticData: IDataObject = { filter: 'public', feeds: { '1': { mark: 3 } }, backlog: { X: {} } };
		const saved = savedState(pollContext({ staticData }).context);
		expect(saved).toBe(staticData);
		replaceSavedState(saved, { filter: '', feeds: { '2': { mark: 5 } } });
		expect(staticData).toEqual({ filter: '', feeds: { '2': { mark: 5 } } });
	});
});

test("log lines start with the trigger's name", () => {
	const { context, logs } = pollContext();
	const log = triggerLog(context, 'Some Trigger');
	log.info('recorded');
	log.warn('failed');
	expect(logs).toEqual([
		['info', 'Some Trigger: recorded'],
		['warn', 'Some Trigger: failed'],
	]);
});

test('a poll with items emits them as one output; without, nothing (no execution starts)', () => {
	expect(pollOutput([{ json: { a: 1 } }])).toEqual([[{ json: { a: 1 } }]]);
	expect(pollOutput([])).toBeNull();
});

describe('onePollAtATime', () => {
	it('a poll that starts while the last one of the same trigger runs is skipped and says so; the next one runs', async () => {
		const { context, logs } = pollContext();
		let release: () => void = () => undefined;
		const first = onePollAtATime(context, 'Feed Trigger', async () => {
			await new Promise<void>((resolve) => (release = resolve));
			return [[{ json: { id: 1 } }]];
		});
		let ranSecond = false;
		const second = await onePollAtATime(context, 'Feed Trigger', async () => {
			ranSecond = true;
			return null;
		});
		expect(second).toBeNull();
		expect(ranSecond).toBe(false);
		expect(logs).toEqual([['info', expect.stringContaining('previous poll is still running')]]);
		release();
		expect(await first).toEqual([[{ json: { id: 1 } }]]);
		expect(await onePollAtATime(context, 'Feed Trigger', async () => [[{ json: { id: 2 } }]])).toEqual([[{ json: { id: 2 } }]]);
	});
});
