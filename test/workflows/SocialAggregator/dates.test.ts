/**
 * Dates from date pickers and expressions, in the forms the service takes: the Luxon values n8n expressions give,
 * end to end (the pure reading is tested in test/unit/SocialAggregator/common/dates.test.ts).
 */
import { SEEDED } from '../../fake-service';
import { useFakeService } from '../support';
import { feed, runNode } from './helpers';

describe('dates from expressions, end to end', () => {
	const fake = useFakeService();

	test('Luxon values from $now and DateTime reach the service as YYYY-MM-DD and ISO instants', async () => {
		const analytics = await runNode(
			fake,
			{
				resource: 'analytics',
				operation: 'get',
				feedId: feed(SEEDED.feeds.brandMentions),
				startDate: '={{ DateTime.fromISO("2025-05-02T10:00:00", { zone: "Europe/Berlin" }) }}',
				endDate: '={{ DateTime.fromISO("2025-05-20T23:59:00", { zone: "Europe/Berlin" }) }}',
			},
			{ timezone: 'Europe/Berlin' },
		);
		expect(analytics.error).toBeUndefined();
		expect(analytics.requests.map((r) => r.query)).toEqual([{ start: '2025-05-02', end: '2025-05-20' }]);

		const posts = await runNode(
			fake,
			{
				resource: 'post',
				operation: 'getAll',
				feedId: feed(SEEDED.feeds.brandMentions),
				limit: 5,
				filters: { after: '={{ DateTime.fromISO("2025-05-02T10:00:00", { zone: "Europe/Berlin" }) }}' },
			},
			{ timezone: 'Europe/Berlin' },
		);
		expect(posts.error).toBeUndefined();
		expect(posts.requests.map((r) => r.query)).toEqual([{ starting_at: '2025-05-02T08:00:00.000Z', page: '1', per_page: '5' }]);
	});
});
