import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecutePaginationFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { errorItem } from '../../../shared/errors';
import {
	chooseMedia,
	DEFAULT_MAX_FILE_MB,
	DEFAULT_TIME_LIMIT_SECONDS,
	downloadMedium,
	MediaError,
	type ChosenMedium,
	type MediaAnswer,
	type MediaChoice,
} from './medium';
import type { ResolveHost } from './mediaUrl';
import { DEFAULT_TIMEOUT_MS } from '../../../shared/transport';
import { gatePerRun, MEDIA_CONCURRENCY } from '../../../shared/requestGate';
import { collection } from '../fields';
import type { Prepare } from '../checks';
import type { Files } from '../routing';

// Post › Download Media: the post read through the service's transport (by routing.ts), then each chosen
// medium fetched from its host (medium.ts) and put in a binary field. One item per medium, each file in
// the same field (`data` by default): n8n's file nodes (HTTP Request, Google Drive › Download) output one file
// per item, and the nodes that take a file (Drive, Slack, S3, Write to Disk) read one named field per item, so
// every medium flows on without naming fields, and Continue On Fail keeps the media that came. A post's media URLs
// are written by whoever posted: only public addresses over https unless the user allows private hosts, each file
// within a time limit, and only images and videos are kept (medium.ts).

const show = { resource: ['post'], operation: ['downloadMedia'] };

const MAX_FILE_SIZE = 'downloadOptions.maxFileSize';
const TIME_LIMIT = 'downloadOptions.timeLimit';
const ALLOW_PRIVATE = 'downloadOptions.allowPrivateNetwork';

export const downloadMediaFields: INodeProperties[] = [
	{
		displayName: 'Media',
		name: 'media',
		type: 'options',
		default: 'all',
		description:
			'Which media of the post to download, one output item each. Only images (JPEG, PNG, GIF, WebP, AVIF, HEIC, BMP) and videos (MP4, MOV, M4V, WebM, Matroska) are kept, recognised by their bytes, from public internet addresses over https.',
		options: [
			{ name: 'All Media', value: 'all', description: 'Every image and video of the post, in its order' },
			{ name: 'First Medium Only', value: 'first', description: 'The post’s first image or video' },
			{ name: 'Images Only', value: 'images', description: 'The post’s images (and GIFs)' },
			{ name: 'Videos Only', value: 'videos', description: 'The post’s videos' },
		],
		displayOptions: { show },
	},
	{
		displayName: 'Include Poster Avatar',
		name: 'includeAvatar',
		type: 'boolean',
		default: false,
		description: 'Whether to download the poster’s profile picture too, as the last file',
		displayOptions: { show },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the output binary field to put the file in',
		displayOptions: { show },
	},
	collection('Options', 'downloadOptions', show, [
		{
			displayName: 'Allow Private Network Hosts',
			name: 'allowPrivateNetwork',
			type: 'boolean',
			default: false,
			description:
				'Whether to also download from hosts on your own network or this machine (private, loopback, link-local and other non-public addresses such as 10.x, 192.168.x, 127.0.0.1 or 169.254.169.254), and over plain http. Off, media come only from public internet addresses over https: a post’s links are written by whoever posted, and could otherwise reach your databases, cloud metadata or n8n itself. Turn on only for media you host yourself.',
		},
		{
			displayName: 'Max File Size (MB)',
			name: 'maxFileSize',
			type: 'number',
			default: DEFAULT_MAX_FILE_MB,
			typeOptions: { minValue: 1, maxValue: 1024, numberPrecision: 2 },
			description:
				'The largest file to download; a larger one is an error, and no more of it is read than this',
		},
		{
			displayName: 'Time Limit per File (Seconds)',
			name: 'timeLimit',
			type: 'number',
			default: DEFAULT_TIME_LIMIT_SECONDS,
			typeOptions: { minValue: 1, maxValue: 3600 },
			description:
				'The longest one file may take, from the first connection to its last byte, redirects included; a slower file is an error. Stopping the execution stops its downloads at once.',
		},
	]),
];

/** The field name, the size cap and the time limit, checked before any request. */
export const checkDownloadFields: Prepare = function (_request, itemIndex) {
	const field = String(this.getNodeParameter('binaryPropertyName', '') ?? '').trim();
	if (field === '') {
		throw new NodeOperationError(this.getNode(), `The Put Output File in Field is empty [item ${itemIndex}]`, {
			itemIndex,
			description: 'Enter the name of the binary field for the files, such as data.',
		});
	}
	if (maxFileBytes(this.getNodeParameter(MAX_FILE_SIZE, DEFAULT_MAX_FILE_MB)) === undefined) {
		throw new NodeOperationError(this.getNode(), `The Max File Size (MB) must be a number above 0 [item ${itemIndex}]`, {
			itemIndex,
			description: `Enter a size in megabytes of at least one byte (0.000001), such as ${DEFAULT_MAX_FILE_MB}.`,
		});
	}
	if (timeLimitMs(this.getNodeParameter(TIME_LIMIT, DEFAULT_TIME_LIMIT_SECONDS)) === undefined) {
		throw new NodeOperationError(this.getNode(), `The Time Limit per File (Seconds) must be a number above 0 [item ${itemIndex}]`, {
			itemIndex,
			description: `Enter the seconds one file may take, such as ${DEFAULT_TIME_LIMIT_SECONDS}.`,
		});
	}
};

/** Time Limit per File (Seconds) in whole milliseconds; none below one. */
function timeLimitMs(seconds: unknown): number | undefined {
	const ms = Math.round(Number(seconds) * 1000);
	return Number.isFinite(ms) && ms >= 1 ? ms : undefined;
}

/**
 * Host names resolved by n8n's own lookup, which also applies the instance's SSRF rules when it has them on; n8n
 * before 2.0 has none for nodes (the download then checks the address each answer came from, see planHop).
 */
function hostResolver(context: IExecutePaginationFunctions): ResolveHost | undefined {
	const helpers = context.helpers as Partial<IExecutePaginationFunctions['helpers']>;
	if (typeof helpers.getSecureEgressFilter !== 'function') return undefined;
	const lookup = helpers.getSecureEgressFilter().createSecureLookup();
	return async (hostname) =>
		await new Promise<string[]>((resolve, reject) => {
			lookup(hostname, { all: true }, (error, found) => {
				if (error) reject(error);
				else resolve(Array.isArray(found) ? found.map((entry) => entry.address) : [found]);
			});
		});
}

/** Max File Size (MB) in whole bytes; none below one byte, where every file would be turned away as too large. */
function maxFileBytes(megabytes: unknown): number | undefined {
	const bytes = Math.floor(Number(megabytes) * 1024 * 1024);
	return Number.isFinite(bytes) && bytes >= 1 ? bytes : undefined;
}

/** The medium as the item's JSON shows it: as answered, with its position (null for the avatar). */
function describe(medium: ChosenMedium): IDataObject {
	return { ...medium.answered, type: medium.type, index: medium.index };
}

const mediaGate = gatePerRun(MEDIA_CONCURRENCY);

/**
 * A medium that failed as an n8n error. n8n swaps a message holding a connection code (ECONNREFUSED …) for a generic
 * "The service refused the connection", which would lose the post, the medium and the URL: the message is set back.
 */
function mediaError(node: INode, caught: unknown, itemIndex: number): NodeOperationError {
	if (!(caught instanceof MediaError)) return new NodeOperationError(node, caught as Error, { itemIndex });
	const error = new NodeOperationError(node, caught.message, { itemIndex, description: caught.description });
	error.message = caught.message;
	return error;
}

/** Post › Download Media's output from the post read: one item per chosen medium, its file in the chosen field. */
export const downloadMedia: Files = async function (this: IExecutePaginationFunctions, post, json, itemIndex) {
	const pairedItem = { item: itemIndex };
	const choice = this.getNodeParameter('media', 'all') as MediaChoice;
	const chosen = chooseMedia(post, choice, this.getNodeParameter('includeAvatar', false) === true);
	// A post without such media still gives its item, without a file: the run shows why nothing came.
	if (chosen.length === 0) return [{ json: { ...json, medium: null }, pairedItem }];
	const item = (medium: ChosenMedium): INodeExecutionData => ({ json: { ...json, medium: describe(medium) }, pairedItem });
	// An agent reads JSON only (n8n drops binary from a tool's answer): as a tool, the media are described, not fetched.
	if (this.getNode().type.endsWith('Tool')) return chosen.map(item);

	const field = String(this.getNodeParameter('binaryPropertyName', 'data')).trim();
	const maxBytes = maxFileBytes(this.getNodeParameter(MAX_FILE_SIZE, DEFAULT_MAX_FILE_MB)) ?? DEFAULT_MAX_FILE_MB * 1024 * 1024;
	const chosenTimeout = Number(this.getNodeParameter('requestOptions.timeout', 0));
	const timeoutMs = Number.isFinite(chosenTimeout) && chosenTimeout > 0 ? chosenTimeout : DEFAULT_TIMEOUT_MS;
	const postId = String(post.id ?? '');
	const limitMs = timeLimitMs(this.getNodeParameter(TIME_LIMIT, DEFAULT_TIME_LIMIT_SECONDS)) ?? DEFAULT_TIME_LIMIT_SECONDS * 1000;
	const allowPrivateNetwork = this.getNodeParameter(ALLOW_PRIVATE, false) === true;
	// n8n's plain request helper: no credential goes to a media host.
	const fetch = async (request: Parameters<typeof this.helpers.httpRequest>[0]) =>
		(await this.helpers.httpRequest(request)) as MediaAnswer;
	const network = { fetch, resolve: hostResolver(this) };
	const cancelSignal = typeof this.getExecutionCancelSignal === 'function' ? this.getExecutionCancelSignal() : undefined;
	const gate = mediaGate(this);
	const items: INodeExecutionData[] = [];
	for (const medium of chosen) {
		await gate.enter(medium);
		try {
			const file = await downloadMedium(network, medium, {
				postId,
				maxBytes,
				timeoutMs,
				timeLimitMs: limitMs,
				allowPrivateNetwork,
				cancelSignal,
			});
			const binary = await this.helpers.prepareBinaryData(file.bytes, file.fileName, file.mimeType);
			items.push({ ...item(medium), binary: { [field]: binary } });
		} catch (caught) {
			const error = mediaError(this.getNode(), caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			items.push(errorItem(this.getNode(), error, itemIndex));
		} finally {
			gate.leave();
		}
	}
	return items;
};
