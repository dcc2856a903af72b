import { canonicalPlatform, dataSearchProblems, describeProblems } from '../../../nodes/shared/dataSearch';

describe('dataSearchProblems', () => {
	it('accepts SPEC pairs and canonicalises platform names', () => {
		const { search, problems } = dataSearchProblems({ term: ' #n8n ', platforms: ['bluesky', 'X', 'Instagram', 'Bluesky'], termType: 'auto' });
		expect(problems).toEqual([]);
		expect(search).toEqual({ term: '#n8n', platforms: ['Bluesky', 'Twitter', 'Instagram'], termType: undefined });
		expect(dataSearchProblems({ term: 'r/n8n', platforms: 'Reddit', termType: 'channel' }).problems).toEqual([]);
		expect(dataSearchProblems({ term: 'ChIJ123', platforms: ['Google'], termType: 'reviews' }).search.termType).toBe('reviews');
	});

	it('names the term when it is empty', () => {
		const { problems } = dataSearchProblems({ term: '  ', platforms: ['Bluesky'] });
		expect(problems).toEqual([expect.objectContaining({ field: 'term' })]);
		expect(describeProblems(problems).message).toMatch(/^Term: /);
	});

	it('names an unknown platform and an empty choice', () => {
		expect(dataSearchProblems({ term: 'a', platforms: ['Bluesky', 'Myspace'] }).problems).toEqual([
			expect.objectContaining({ field: 'platforms', platform: 'Myspace', message: expect.stringContaining('"Myspace"') }),
		]);
		expect(dataSearchProblems({ term: 'a', platforms: [] }).problems).toEqual([expect.objectContaining({ field: 'platforms' })]);
	});

	it('names each platform that does not take the term type, explicit or inferred', () => {
		const explicit = dataSearchProblems({ term: 'n8n', platforms: ['Bluesky', 'Vimeo', 'Twitter'], termType: 'mentions' }).problems;
		expect(explicit.map((p) => [p.field, p.platform])).toEqual([
			['termType', 'Bluesky'],
			['termType', 'Vimeo'],
		]);
		expect(explicit[0].message).toContain('Bluesky does not take term type "mentions"');
		const inferred = dataSearchProblems({ term: 'n8n', platforms: ['Reddit', 'Google'], termType: 'auto' }).problems;
		expect(inferred.map((p) => p.platform)).toEqual(['Reddit', 'Google']);
		expect(inferred[0].message).toContain('channel or mentions');
		expect(dataSearchProblems({ term: '#n8n', platforms: ['Vimeo'] }).problems[0].message).toContain('"hashtag"');
	});

	it('names an unknown term type', () => {
		expect(dataSearchProblems({ term: 'a', platforms: ['Bluesky'], termType: 'hashtags' }).problems).toEqual([
			expect.objectContaining({ field: 'termType', message: expect.stringContaining('"hashtags"') }),
		]);
	});

	it('lists every field at fault', () => {
		const { problems } = dataSearchProblems({ term: '', platforms: ['Nope'], termType: 'x' });
		const { message, description } = describeProblems(problems);
		expect(message).toContain('Term, Platforms, Term Type');
		expect(description.split('\n')).toHaveLength(3);
	});

	it('matches platform labels', () => {
		expect(canonicalPlatform('X (Twitter)')).toBe('Twitter');
		expect(canonicalPlatform('google reviews')).toBe('Google');
		expect(canonicalPlatform('')).toBeUndefined();
	});
});
