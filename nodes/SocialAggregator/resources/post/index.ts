import type { INodeProperties } from 'n8n-workflow';

import { feedPostShape, simplifyField, toolOutputFields } from '../../../shared/simplify';
import { feedLocator, listFields, postLocator } from '../../common/fields';
import { postApprove } from './approve';
import { postDelete } from './delete';
import { postDownloadMedia, postDownloadMediaFields } from './downloadMedia';
import { show } from './feedPost';
import { postGet } from './get';
import { postGetAll, postGetAllFields } from './getAll';
import { postModerateMany, postModerateManyFields } from './moderateMany';
import { postPin } from './pin';
import { postReject } from './reject';
import { postSearch, postSearchFields } from './search';
import { postUnpin } from './unpin';

// The Post resource: its operations in the panel's order, then their fields; an operation's routing and its own
// fields are in its file, the fields several operations share here.
export const postDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			postApprove,
			postDelete,
			postDownloadMedia,
			postGet,
			postGetAll,
			postModerateMany,
			postPin,
			postReject,
			postSearch,
			postUnpin,
		],
		default: 'getAll',
	},

	feedLocator({ ...show, operation: ['approve', 'delete', 'downloadMedia', 'get', 'getAll', 'moderateMany', 'pin', 'reject', 'unpin'] }),
	postLocator({ ...show, operation: ['approve', 'delete', 'downloadMedia', 'get', 'pin', 'reject', 'unpin'] }, 'The post, one of the chosen feed’s posts'),
	...postDownloadMediaFields,
	...postModerateManyFields,
	...postSearchFields,

	// The reads' list and output fields
	...listFields({ ...show, operation: ['getAll', 'search'] }),
	// On for the lists; a single post asked for by ID comes whole unless asked otherwise.
	simplifyField({ ...show, operation: ['getAll', 'search'] }, true),
	simplifyField({ ...show, operation: ['get'] }, false),
	// On for Download Media: the post comes with each of its files.
	simplifyField({ ...show, operation: ['downloadMedia'] }, true),
	...toolOutputFields({ ...show, operation: ['downloadMedia', 'get', 'getAll', 'search'] }, feedPostShape),

	...postGetAllFields,
];
