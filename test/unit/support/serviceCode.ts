import type { IDataObject } from 'n8n-workflow';

import { errorItem } from '../../../nodes/shared/errors';
import { NODE } from './context';

/** The service's error code an error carries, as Continue On Fail's item shows it (`details.code`). */
export function serviceCode(error: unknown): unknown {
	return (errorItem(NODE, error, 0).json.details as IDataObject | undefined)?.code;
}
