import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../shared/utils';

// The static data webhook() hands its execution (owed.ts) rides in the execution's record in n8n's database while it
// is queued or running, the subscription's signing secret among it. Sealed with a key only the credential gives
// (AES-256-GCM; the key a SHA-256 of the API key), that record holds no secret in the clear, and a record altered
// there is refused, not read.

const VERSION = 1;
const KEY_CONTEXT = 'n8n-nodes-social-aggregator: the trigger state handed to an execution\0';

/** Static data sealed for the execution a delivery starts. */
export interface SealedState extends IDataObject {
	v: number;
	iv: string;
	tag: string;
	data: string;
}

const keyOf = (apiKey: string) => createHash('sha256').update(KEY_CONTEXT).update(apiKey).digest();

/** `value` sealed with `apiKey`: a fresh IV each time, so two seals of one value differ. */
export function seal(value: IDataObject, apiKey: string): SealedState {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', keyOf(apiKey), iv);
	const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
	return { v: VERSION, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** What `sealed` holds, or undefined when it is not a seal of this version, another key sealed it, or it was altered. */
export function unseal(sealed: unknown, apiKey: string): IDataObject | undefined {
	if (!isObject(sealed) || sealed.v !== VERSION) return undefined;
	const { iv, tag, data } = sealed;
	if (typeof iv !== 'string' || typeof tag !== 'string' || typeof data !== 'string') return undefined;
	try {
		const decipher = createDecipheriv('aes-256-gcm', keyOf(apiKey), Buffer.from(iv, 'base64'));
		decipher.setAuthTag(Buffer.from(tag, 'base64'));
		const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
		const value: unknown = JSON.parse(text);
		return isObject(value) ? (value as IDataObject) : undefined;
	} catch {
		return undefined;
	}
}
