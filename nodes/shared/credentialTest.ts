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
	// The HTTP client refuses such a header, and its message would blame the address.
	if ([...apiKey].some((char) => char === '\r' || char === '\n' || char === '\0' || char.codePointAt(0)! > 0xff)) {
		return {
			status: 'Error',
			message: 'The API Key holds a line break or a character a request header cannot carry: paste the key again, on one line.',
		};
	}
	let response: Response;
	try {
		// A credential test gets only n8n's deprecated request helper, which n8n's own checks refuse;
		// Node's fetch makes the one GET.
		response = await fetch(`${checked.value}/account`, {
			headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
			// A redirect answered by a page (a login page, say) is not the API: it is named, never followed.
			redirect: 'manual',
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
	if (response.status >= 300 && response.status < 400) {
		const location = response.headers.get('location');
		const to = location ? ` to ${location}` : '';
		return {
			status: 'Error',
			message: redact(`The Base URL answers GET /account with a redirect (HTTP ${response.status}${to}): enter the address the API itself answers at, ending in /v1.`, [apiKey]),
		};
	}
	const said = envelopeMessage(await response.json().catch(() => undefined)) ?? 'The service refused the request';
	return { status: 'Error', message: redact(`${said} (HTTP ${response.status} from GET /account)`, [apiKey]) };
}
