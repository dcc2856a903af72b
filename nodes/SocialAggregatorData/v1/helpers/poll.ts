import type { IExecuteFunctions } from 'n8n-workflow';

import { refusalError } from '../../../shared/refusal';
import { checkAnswer } from '../../../shared/answers';
import { itemRetryPolicy } from '../../../shared/requestOptions';
import { apiRequestFull } from '../../../shared/transport';
import { keyIssuanceBaseUrl } from './baseUrl';
import { checkRequestId } from './input';
import { pollItem, type PollResult } from './keys';

/** Reads the Request ID parameter and returns a function asking GET /authorize/{request_id} once. */
export async function preparePoll(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<{ requestId: string; poll: () => Promise<PollResult> }> {
	const checked = checkRequestId(this.getNodeParameter('requestId', itemIndex, ''));
	if (!checked.ok) throw refusalError(this.getNode(), checked.refusal, itemIndex);
	const { path, requestId, absolute } = checked.value;
	// An absolute poll_url needs no base URL.
	const baseUrl = absolute ? '' : await keyIssuanceBaseUrl.call(this, itemIndex);
	const poll = async (): Promise<PollResult> => {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path,
			baseUrl,
			authenticated: false,
			acceptStatuses: [202, 410],
			itemIndex,
			retry: itemRetryPolicy.call(this, itemIndex),
		});
		const where = { request: `GET /authorize/${requestId}`, statusCode: response.statusCode, itemIndex };
		return checkAnswer(this.getNode(), () => pollItem(response.statusCode, response.body, requestId), where);
	};
	return { requestId, poll };
}
