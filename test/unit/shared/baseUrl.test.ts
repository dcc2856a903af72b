import { checkBaseUrl } from '../../../nodes/shared/baseUrl';
import { refusal, value } from '../support/checked';

describe('checkBaseUrl: one check for the credential test, both action nodes and the triggers', () => {
	test('an https address ending in the version prefix, with or without a trailing slash', () => {
		expect(value(checkBaseUrl('https://api.example.com/v1'))).toBe('https://api.example.com/v1');
		expect(value(checkBaseUrl(' https://api.example.com/v1/ '))).toBe('https://api.example.com/v1');
		expect(value(checkBaseUrl('https://example.com/social/api/v1//'))).toBe('https://example.com/social/api/v1');
	});

	test('plain http only for a service on this machine', () => {
		expect(value(checkBaseUrl('http://127.0.0.1:3000/v1/'))).toBe('http://127.0.0.1:3000/v1');
		expect(value(checkBaseUrl('http://localhost:4010/v1'))).toBe('http://localhost:4010/v1');
		expect(value(checkBaseUrl('http://[::1]:4010/v1'))).toBe('http://[::1]:4010/v1');
		expect(refusal(checkBaseUrl('http://api.example.com/v1')).reason).toMatch(/plain http/);
	});

	test('without the version prefix, with a path after it, or not an address: refused, naming the field', () => {
		const missing = refusal(checkBaseUrl('https://api.example.com'));
		expect(missing.field).toBe('Base URL');
		expect(missing.reason).toBe('"https://api.example.com" does not end in the version prefix /v1');
		expect(refusal(checkBaseUrl('https://api.example.com/v1/feeds')).reason).toBe(
			'"https://api.example.com/v1/feeds" goes on after the version prefix (/feeds); the Base URL ends at /v1',
		);
		expect(refusal(checkBaseUrl('api.example.com/v1')).reason).toMatch(/is not a web address/);
		expect(refusal(checkBaseUrl('ftp://api.example.com/v1')).reason).toMatch(/is not an http\(s\) address/);
		expect(refusal(checkBaseUrl('https://api.example.com/v1?x=1')).reason).toMatch(/query/);
		expect(refusal(checkBaseUrl('')).reason).toBe('the Base URL is empty');
		expect(refusal(checkBaseUrl(undefined, 'Base URL (of the credential)')).field).toBe('Base URL (of the credential)');
	});

	test('every refusal says what a right value looks like', () => {
		for (const wrong of ['', 'x', 'https://api.example.com', 'http://api.example.com/v1']) {
			expect(refusal(checkBaseUrl(wrong)).hint).toContain('https://api.example.com/v1');
		}
	});
});
