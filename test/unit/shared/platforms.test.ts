import { canonicalPlatform, matchPlatform, platformLabel, platformStatus } from '../../../nodes/shared/platforms';

describe('platform names', () => {
	test('the name requests use, the label users see, and names the service may answer', () => {
		expect(platformLabel('Twitter')).toBe('X (Twitter)');
		expect(platformLabel('Bluesky')).toBe('Bluesky');
		expect(canonicalPlatform(' x ')).toBe('Twitter');
		expect(canonicalPlatform('X (Twitter)')).toBe('Twitter');
		expect(canonicalPlatform('bluesky')).toBe('Bluesky');
		expect(canonicalPlatform('Friendster')).toBeUndefined();
		expect(canonicalPlatform('')).toBeUndefined();
	});

	test('matchPlatform and platformStatus find a platform whatever the service calls it', () => {
		expect(matchPlatform('X', ['Bluesky', 'Twitter'])).toBe('Twitter');
		expect(matchPlatform('BLUESKY', ['Bluesky', 'Twitter'])).toBe('Bluesky');
		expect(matchPlatform('Vimeo', ['Bluesky'])).toBeUndefined();
		const statuses = [{ platform: 'X', success: true }, { platform: 'bluesky', success: false }];
		expect(platformStatus(statuses, 'Twitter')).toBe(statuses[0]);
		expect(platformStatus(statuses, 'Bluesky')).toBe(statuses[1]);
		expect(platformStatus(statuses, 'Vimeo')).toBeUndefined();
	});
});
