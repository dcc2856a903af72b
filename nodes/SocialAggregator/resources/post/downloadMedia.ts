import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { feedPostShape } from '../../../shared/simplify';
import { requireOneOf } from '../../common/checks';
import { checkDownloadFields, downloadMedia, downloadMediaFields } from '../../common/media/downloadStep';
import { MEDIA_CHOICES } from '../../common/media/medium';
import { route } from '../../common/routing';
import { postUrl } from './feedPost';

export const postDownloadMedia: INodePropertyOptions = {
	name: 'Download Media',
	value: 'downloadMedia',
	description: 'Download the images and videos of a post as files, one item per file',
	action: 'Download the media of a post',
	routing: route({
		method: 'GET',
		url: postUrl,
		shape: feedPostShape,
		ofFeed: true,
		prepare: [requireOneOf('media', 'Media', MEDIA_CHOICES), checkDownloadFields],
		files: downloadMedia,
	}),
};

/** Its fields live beside the checks that read them (common/media/downloadStep.ts); its Simplify is the index's. */
export const postDownloadMediaFields: INodeProperties[] = downloadMediaFields;
