import { fieldText, listIn, toOption, toOptions, type OptionFields } from '../../../nodes/shared/options';

const EVENT: OptionFields = { value: ['event', 'name'], description: (e) => fieldText(e, ['description']) };

describe('listIn: the list in an answer, whatever holds it', () => {
	test.each([
		['a bare list', [1, 2]],
		['data', { data: [1, 2] }],
		['a named list under data', { data: { events: [1, 2] } }],
		['a named list at the top', { events: [1, 2], meta: {} }],
		['items under data', { data: { items: [1, 2] } }],
	])('%s', (_shape, answer) => {
		expect(listIn(answer, ['events'])).toEqual([1, 2]);
	});

	test.each([[undefined], [null], [''], ['[]'], [42], [{}], [{ data: 'x' }], [{ data: { other: [1] } }]])('nothing usable in %j: an empty list', (answer) => {
		expect(listIn(answer, ['events'])).toEqual([]);
	});
});

describe('toOption: an entry as an option, or nothing', () => {
	test('the first field with text is the value; the label defaults to it', () => {
		expect(toOption({ name: 'post.created', event: '', description: 'New posts' }, EVENT)).toEqual({
			name: 'post.created',
			value: 'post.created',
			description: 'New posts',
		});
		expect(toOption({ event: ' post.created ', name: 'Post created' }, EVENT)).toEqual({ name: 'post.created', value: 'post.created' });
	});

	test('a bare string or finite number is its own value', () => {
		expect(toOption('post.created', EVENT)).toEqual({ name: 'post.created', value: 'post.created' });
		expect(toOption(7, { value: ['id'] })).toEqual({ name: '7', value: '7' });
	});

	test.each([[null], [undefined], [''], ['  '], ['undefined'], ['null'], ['[object Object]'], [NaN], [Infinity], [true], [[]], [{}], [{ event: {} }], [{ name: ['x'] }], [{ description: 'only' }]])(
		'no value in %j: no option',
		(entry) => {
			expect(toOption(entry, EVENT)).toBeUndefined();
		},
	);

	test('a label built from the name found, or from the value when the entry has none', () => {
		const feed: OptionFields = { value: ['id'], name: ['name'], label: (name, id) => (name ? `${name} (${id})` : `Feed ${id}`) };
		expect(toOption({ id: 1, name: 'Wall' }, feed)?.name).toBe('Wall (1)');
		expect(toOption({ id: 2, name: null }, feed)?.name).toBe('Feed 2');
		expect(toOption(3, feed)?.name).toBe('Feed 3');
	});

	test('a name field without text falls back to the value', () => {
		expect(toOption({ platform: 'Reddit', display_name: '' }, { value: ['platform'], name: ['display_name'] })).toEqual({ name: 'Reddit', value: 'Reddit' });
	});
});

test('toOptions leaves out unusable entries and repeated values, keeping the first', () => {
	expect(toOptions(['a', null, { name: 'b' }, { event: 'a', description: 'again' }, {}], EVENT)).toEqual([
		{ name: 'a', value: 'a' },
		{ name: 'b', value: 'b' },
	]);
});
