import type { INodeProperties } from 'n8n-workflow';

import { requireEmail, requireOneOf, bodyIdList, bodyOptionalId } from '../common/checks';
import { collection, feedLocator, notice } from '../common/fields';
import { route } from '../common/routing';

const show = { resource: ['user'] };

export const userDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Assign Feed',
				value: 'assignFeed',
				description: 'Give a collaborator access to a feed',
				action: 'Assign a feed to a user',
				routing: route({ method: 'PUT', url: '=/users/{{$parameter.userId}}/feeds/{{$parameter.feedId}}' }),
			},
			{
				name: 'Create Sign-In Token',
				value: 'createSignInToken',
				description:
					'Create a single-use link, valid 30 minutes, that signs a collaborator in to the dashboard or to one feed',
				action: 'Create a token to sign in a user',
				routing: route({
					method: 'POST',
					url: '=/users/{{$parameter.userId}}/sign_in_token',
					prepare: [bodyOptionalId('options.feedId', 'feed_id', 'Feed ID')],
					verify: 'nothing: asking again gives the same token while it is unused',
				}),
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Remove a user from the account',
				action: 'Delete a user',
				routing: route({ method: 'DELETE', url: '=/users/{{$parameter.userId}}' }),
			},
			{
				name: 'Invite',
				value: 'invite',
				description: 'Invite a manager or a collaborator to the account (Enterprise and Team plans)',
				action: 'Invite a user',
				routing: route({
					method: 'POST',
					url: '/users',
					prepare: [
						requireEmail('email', 'Email'),
						requireOneOf('role', 'Role', ['manager', 'collaborator']),
						bodyIdList('feedIds', 'feed_ids', 'Feed IDs'),
					],
					verify: "the account's users in the dashboard (an invitation may have been sent)",
				}),
			},
		],
		default: 'invite',
	},

	// Invite
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		required: true,
		default: '',
		description: 'The email address of the person to invite',
		displayOptions: { show: { ...show, operation: ['invite'] } },
		routing: { send: { type: 'body', property: 'email', value: '={{ String($value).trim() }}' } },
	},
	{
		displayName: 'Role',
		name: 'role',
		type: 'options',
		default: 'collaborator',
		options: [
			{
				name: 'Collaborator',
				value: 'collaborator',
				description: 'Works on the feeds assigned to them',
			},
			{
				name: 'Manager',
				value: 'manager',
				description: 'Administers the account and every feed once the invitation is accepted',
			},
		],
		displayOptions: { show: { ...show, operation: ['invite'] } },
		routing: { send: { type: 'body', property: 'role' } },
	},
	{
		displayName: 'Feed Names or IDs',
		name: 'feedIds',
		type: 'multiOptions',
		default: [],
		description:
			'Feeds the collaborator gets access to; none creates the collaborator without feeds. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		typeOptions: { loadOptionsMethod: 'getFeeds' },
		displayOptions: { show: { ...show, operation: ['invite'], role: ['collaborator'] } },
	},
	{
		displayName: 'Skip Invitation Email',
		name: 'skipInvitationEmail',
		type: 'boolean',
		default: false,
		description:
			'Whether to send no invitation email (and, for a collaborator with feeds, no new-feed notification)',
		displayOptions: { show: { ...show, operation: ['invite'] } },
		routing: { send: { type: 'body', property: 'skip_invitation_email' } },
	},
	notice(
		'inviteNotice',
		{ ...show, operation: ['invite'] },
		'Inviting users needs the Enterprise or Team plan; on other plans the error holds a link to upgrade. A manager can only be invited to an account on the free plan without feeds.',
	),

	// Delete, Create Sign-In Token, Assign Feed
	{
		displayName: 'User ID',
		name: 'userId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 17',
		description: 'The ID of the user, as the Invite operation returns it',
		displayOptions: { show: { ...show, operation: ['assignFeed', 'createSignInToken', 'delete'] } },
	},
	feedLocator({ ...show, operation: ['assignFeed'] }, 'The feed the collaborator gets access to'),

	// Create Sign-In Token
	collection('Options', 'options', { ...show, operation: ['createSignInToken'] }, [
		{
			displayName: 'Feed Name or ID',
			name: 'feedId',
			type: 'options',
			default: '',
			description:
				'Open this feed’s editor after signing in; the collaborator must be assigned to it. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			typeOptions: { loadOptionsMethod: 'getFeeds' },
		},
	]),
	notice(
		'signInTokenNotice',
		{ ...show, operation: ['createSignInToken'] },
		'The output holds the sign-in token and URL: whoever opens the URL is signed in as this user. Hand it only to them, and keep it out of logs and shared channels.',
	),
];
