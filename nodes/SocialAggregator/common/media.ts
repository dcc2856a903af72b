import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { errorItem } from '../../shared/errors';
import {
	chooseMedia,
	DEFAULT_MAX_FILE_MB,
	downloadMedium,
	MediaError,
	type ChosenMedium,
	type MediaAnswer,
	type MediaChoice,
} from '../../shared/media';
import { DEFAULT_TIMEOUT_MS, RequestGate } from '../../shared/transport';
import { collection } from './fields';
import type { Prepare } from './checks';
import type { Files } from './routing';

// Post › Download Media: the post read through the service's transport (by routing.ts), then each chosen
// medium fetched from its host (shared/media.ts) and put in a binary field. One item per medium, each file in
// the same field (`data` by default): n8n's file nodes (HTTP Request, Google Drive › Download) output one file
// per item, and the nodes that take a file (Drive, Slack, S3, Write to Disk) read one named field per item, so
// every medium flows on without naming fields, and Continue On Fail keeps the media that came.

const show = { resource: ['post'], operation: ['downloadMedia'] };

const MAX_FILE_SIZE = 'downloadOptions.maxFileSize';

export const downloadMediaFields: INodeProperties[] = [
	{
		displayName: 'Media',
		name: 'media',
		type: 'options',
		default: 'all',
		description: 'Which media of the post to download, one output item each',
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
			displayName: 'Max File Size (MB)',
			name: 'maxFileSize',
			type: 'number',
			default: DEFAULT_MAX_FILE_MB,
			typeOptions: { minValue: 1, maxValue: 1024, numberPrecision: 2 },
			description:
				'The largest file to download; a larger one is an error, and no more of it is read than this',
		},
	]),
];

/** The field name and the size cap, checked before any request. */
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
};

/** Max File Size (MB) in whole bytes; none below one byte, where every file would be turned away as too large. */
function maxFileBytes(megabytes: unknown): number | undefined {
	const bytes = Math.floor(Number(megabytes) * 1024 * 1024);
	return Number.isFinite(bytes) && bytes >= 1 ? bytes : undefined;
}

/** The medium as the item's JSON shows it: as answered, with its position (null for the avatar). */
function describe(medium: ChosenMedium): IDataObject {
	return { ...medium.answered, type: medium.type, index: medium.index };
}

/** Media downloads a node run has in flight at once, whatever the number of input items: memory stays bounded. */
export const MEDIA_CONCURRENCY = 4;

const runGates = new WeakMap<object, RequestGate>();

function mediaGate(context: IExecutePaginationFunctions): RequestGate {
	const run: object | undefined = context.getExecuteData();
	const gate = (run && runGates.get(run)) ?? new RequestGate(MEDIA_CONCURRENCY);
	if (run) runGates.set(run, gate);
	return gate;
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
	// n8n's plain request helper: no credential goes to a media host.
	const fetch = async (request: Parameters<typeof this.helpers.httpRequest>[0]) =>
		(await this.helpers.httpRequest(request)) as MediaAnswer;
	const gate = mediaGate(this);
	const items: INodeExecutionData[] = [];
	for (const medium of chosen) {
		await gate.enter(medium);
		try {
			const file = await downloadMedium(fetch, medium, { postId, maxBytes, timeoutMs });
			const binary = await this.helpers.prepareBinaryData(file.bytes, file.fileName, file.mimeType);
			items.push({ ...item(medium), binary: { [field]: binary } });
		} catch (caught) {
			const error =
				caught instanceof MediaError
					? new NodeOperationError(this.getNode(), caught.message, { itemIndex, description: caught.description })
					: new NodeOperationError(this.getNode(), caught as Error, { itemIndex });
			if (!this.continueOnFail()) throw error;
			items.push(errorItem(this.getNode(), error, itemIndex));
		} finally {
			gate.leave();
		}
	}
	return items;
};
