import { seal, unseal } from '../../../nodes/SocialAggregatorTrigger/sealedState';

const KEY = 'sk_live_the-credential-key';
const state = { node: { subscriptions: { live: { id: '7', secret: 'whsec_do-not-show' } } }, global: { n: 1 } };

describe('the static data handed to an execution, sealed with the credential', () => {
	test('unsealed with the same key it is what was sealed', () => {
		expect(unseal(seal(state, KEY), KEY)).toEqual(state);
	});

	test('the seal shows no secret and no field in the clear, and two seals of one value differ', () => {
		const sealed = seal(state, KEY);
		const text = JSON.stringify(sealed);
		for (const clear of ['whsec_do-not-show', 'subscriptions', KEY]) expect(text).not.toContain(clear);
		expect(JSON.stringify(seal(state, KEY))).not.toEqual(text);
	});

	test('another key, an altered seal, another version or no seal at all: nothing', () => {
		const sealed = seal(state, KEY);
		expect(unseal(sealed, 'sk_live_another-key')).toBeUndefined();
		const data = Buffer.from(sealed.data, 'base64');
		data[0] ^= 1;
		expect(unseal({ ...sealed, data: data.toString('base64') }, KEY)).toBeUndefined();
		expect(unseal({ ...sealed, tag: Buffer.alloc(16).toString('base64') }, KEY)).toBeUndefined();
		expect(unseal({ ...sealed, v: 2 }, KEY)).toBeUndefined();
		for (const none of [undefined, null, 'text', [], { v: 1 }, { v: 1, iv: 1, tag: '', data: '' }]) expect(unseal(none, KEY)).toBeUndefined();
	});
});
