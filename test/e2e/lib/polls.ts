/** Scheduled polls of a polling trigger, as the fake service's request log shows them. */
import { sleep, waitFor } from './util';

/**
 * n8n's poll times for a poll every 10 seconds, `offset` seconds past each tenth: six once-a-minute crons (n8n refuses
 * poll times under a minute, one cron at a time; the editor offers "Add Poll Time" for this).
 */
export function everyTenSeconds(offset = 0) {
	return { item: [0, 10, 20, 30, 40, 50].map((second) => ({ mode: 'custom', cronExpression: `${(second + offset) % 60} * * * * *` })) };
}

/** A request as the fake's log gives it: enough to tell where a poll begins. */
interface LoggedRequest {
	query: Record<string, unknown>;
}

/**
 * Waits for the next scheduled poll, and answers how many requests it made. A poll begins with page 1 and asks the
 * pages after it one by one; it has ended when the next poll asks for page 1 (10 s after it began), or when no
 * request has come for 8 s. No timing margin decides what belongs to which poll, however loaded the machine.
 */
export async function nextPoll(requests: () => LoggedRequest[]): Promise<number> {
	const isStart = (request: LoggedRequest) => request.query.page === '1';
	const before = requests().length;
	await waitFor('a scheduled poll', () => requests().slice(before).some(isStart), { timeoutMs: 25_000, intervalMs: 50 });
	const start = before + requests().slice(before).findIndex(isStart);
	let seen = -1;
	let quietSince = Date.now();
	const deadline = Date.now() + 60_000;
	for (;;) {
		const after = requests().slice(start + 1);
		const next = after.findIndex(isStart);
		if (next >= 0) return 1 + next;
		if (after.length !== seen) {
			seen = after.length;
			quietSince = Date.now();
		} else if (Date.now() - quietSince >= 8000) {
			return 1 + after.length;
		}
		if (Date.now() > deadline) throw new Error('a poll went on asking for pages for 60 s');
		await sleep(100);
	}
}

/**
 * Waits until the poll in flight (nextPoll answers once the next one has asked for page 1) has asked its last page:
 * no request for 2 s. A test that adds posts then counts the next poll's requests adds them between polls, so no poll
 * reads page 1 before they are stored and the pages after it once they are.
 */
export async function pollsAtRest(requests: () => LoggedRequest[]): Promise<void> {
	let seen = requests().length;
	let quietSince = Date.now();
	while (Date.now() - quietSince < 2000) {
		await sleep(100);
		if (requests().length !== seen) {
			seen = requests().length;
			quietSince = Date.now();
		}
	}
}
