import { idText, rawIdToken } from '../../../nodes/SocialAggregatorTrigger/deliveryId';

const rawId = (raw: string) => rawIdToken(raw)?.text;

describe('the delivery id as written', () => {
	it('reads the top-level id as written, wherever it stands', () => {
		expect(rawId('{"data":{"id":"inner","x":[1,{"id":2}]},"id":9007199254740993}')).toBe('9007199254740993');
		expect(rawId('{ "event": "a,\\"b\\"}", "id" : "dlv_1" }')).toBe('dlv_1');
		expect(rawId('{"id":null}')).toBeUndefined();
		expect(rawId('{"id":{"a":1}}')).toBeUndefined();
		expect(rawId('[1]')).toBeUndefined();
	});

	it('reads the last id when the key comes twice, as JSON.parse does', () => {
		expect(rawId('{"id":1,"data":{"id":3},"id":2}')).toBe('2');
	});

	it('tells a number from a text of digits', () => {
		expect(rawIdToken('{"id":0123}')).toEqual({ text: '0123', number: true });
		expect(rawIdToken('{"id":"0123"}')).toEqual({ text: '0123', number: false });
	});

	it('reads a delivery holding a string of many megabytes (n8n reads bodies up to 16 MB)', () => {
		// One regex alternation per character overflowed the engine's stack on such a string.
		const pad = 'x'.repeat(16 * 1024 * 1024);
		expect(rawId(`{"event":"post.created","data":{"text":"${pad}\\"${pad}"},"id":"dlv_big"}`)).toBe('dlv_big');
	});

	it('idText: a non-empty string, or a number’s digits', () => {
		expect(idText('dlv_1')).toBe('dlv_1');
		expect(idText(42)).toBe('42');
		expect(idText('')).toBeUndefined();
		expect(idText(null)).toBeUndefined();
	});
});
