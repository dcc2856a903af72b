import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { checkBaseUrl } from './baseUrl';
import { envelopeMessage, redact } from './errors';
import { describeRefusal } from './refusal';

/** The name nodes give in `testedBy` for the credential test below. */
export const CREDENTIAL_TEST = 'socialAggregatorApiTest';

const TEST_TIMEOUT_MS = 20_000;

/** The Base URL check, then `GET /account`: a refusal shows the service's own message (n8n's would say "Unauthorized"). */
export async function socialAggregatorApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const apiKey = String(data.apiKey ?? '');
	const checked = checkBaseUrl(data.baseUrl);
	if (!checked.ok) {
		// The refusal quotes the Base URL, where a key may have been pasted.
		return { status: 'Error', message: redact(`${describeRefusal(checked.refusal)}. ${checked.refusal.hint ?? ''}`.trim(), [apiKey]) };
	}
	let response: Response;
	try {
		// A credential test gets only n8n's deprecated request helper, which n8n's own checks refuse;
		// Node's fetch makes the one GET.
		response = await fetch(`${checked.value}/account`, {
			headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
			signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
		});
	} catch (error) {
		const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
		const said = [cause?.code, cause?.message, error instanceof Error ? error.message : String(error)];
		const reason = said.find((text): text is string => typeof text === 'string' && text !== '');
		return {
			status: 'Error',
			message: redact(`The service could not be reached at ${checked.value} (${reason}). Check the Base URL.`, [apiKey]),
		};
	}
	if (response.ok) return { status: 'OK', message: 'Connection successful!' };
	const said = envelopeMessage(await response.json().catch(() => undefined)) ?? 'The service refused the request';
	return { status: 'Error', message: redact(`${said} (HTTP ${response.status} from GET /account)`, [apiKey]) };
}
