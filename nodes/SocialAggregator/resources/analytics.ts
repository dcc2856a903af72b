import type { INodeProperties } from 'n8n-workflow';

import { queryDateRange } from '../common/checks';
import { feedLocator } from '../common/fields';
import { route } from '../common/routing';

const show = { resource: ['analytics'] };

/** The service's default range, which the node sends explicitly so the output says what it covers. */
const DEFAULT_DAYS = 30;

export const analyticsDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the analytics of a feed for a date range: totals, page views, clicks, figures per source and the top posts',
				action: 'Get analytics of a feed',
				routing: route({
					method: 'GET',
					url: '=/feeds/{{$parameter.feedId}}/analytics',
					prepare: [
						queryDateRange(
							{ path: 'startDate', label: 'Start Date', property: 'start' },
							{ path: 'endDate', label: 'End Date', property: 'end' },
							DEFAULT_DAYS,
						),
					],
				}),
			},
		],
		default: 'get',
	},
	feedLocator(show),
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		description: 'The first day of the range (in the workflow time zone)',
		hint: 'Leave empty for 30 days before the end date',
		displayOptions: { show: { ...show, operation: ['get'] } },
	},
	{
		displayName: 'End Date',
		name: 'endDate',
		type: 'dateTime',
		default: '',
		description: 'The last day of the range (in the workflow time zone)',
		hint: 'Leave empty for today',
		displayOptions: { show: { ...show, operation: ['get'] } },
	},
];
