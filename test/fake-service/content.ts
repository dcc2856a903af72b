/** Deterministic post content: the same inputs always give the same post. */
import { DATA_PLATFORM_BY_NAME, type EngagementField, type MediaStyle } from './catalog';
import type { Medium, Poster, ReferencedPost } from './types';
import { hash32, int, iso, pick, rng } from './util';

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kira', 'Luca', 'Mara', 'Nils', 'Oona', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tara'];
const LAST = ['Lovelace', 'Okafor', 'Nguyen', 'Schmidt', 'Rossi', 'Tanaka', 'Silva', 'Kowalski', 'Haddad', 'Larsen'];
const OPENERS = ['Just tried', 'Loving', 'Thoughts on', 'Behind the scenes of', 'Big news about', 'Can we talk about', 'Weekend with', 'First look at', 'Quick review of', 'Celebrating'];
const SUBJECTS = ['the new launch', 'our spring collection', 'the community meetup', 'this morning coffee', 'the city marathon', 'a rainy afternoon', 'the product update', 'the festival lineup', 'a tiny bakery', 'the open-source release'];
const CLOSERS = ['Highly recommended!', 'What do you think?', 'More soon.', 'Thanks everyone!', 'Best day so far.', 'Worth the wait.', 'Link below.', 'Cannot stop smiling.'];
const REVIEWS = ['Friendly staff and great coffee.', 'Slow service but the food was worth it.', 'Clean, quiet and central.', 'Would not come back, sadly.', 'Best croissant in town.', 'Good value, long queue.'];
const ARTICLE_HOSTS = ['news.example.org', 'blog.example.net', 'magazine.example.com'];

export interface PlatformLook {
	host: string;
	cdn: string;
	media: MediaStyle;
	idPrefix: string;
}

const FEED_ONLY_LOOK: Record<string, PlatformLook> = {
	Threads: { host: 'www.threads.net', cdn: 'scontent.cdninstagram.com', media: 'mixed', idPrefix: 'th' },
	RSS: { host: 'blog.example.com', cdn: 'blog.example.com', media: 'none', idPrefix: 'rss' },
};

export function look(platform: string): PlatformLook {
	const p = DATA_PLATFORM_BY_NAME.get(platform);
	if (p) return { host: p.host, cdn: p.cdn, media: p.media, idPrefix: p.name.slice(0, 2).toLowerCase() };
	return FEED_ONLY_LOOK[platform] ?? { host: `${platform.toLowerCase()}.example`, cdn: `cdn.${platform.toLowerCase()}.example`, media: 'mixed', idPrefix: 'xx' };
}

export function stripPrefix(term: string): string {
	return term.replace(/^[#@]/, '');
}

function slug(text: string): string {
	return text.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'user';
}

export function makePoster(platform: string, handle: string, r: () => number, displayName?: string): Poster {
	const l = look(platform);
	const display = displayName ?? `${pick(r, FIRST)} ${pick(r, LAST)}`;
	const name = handle || slug(display);
	const pid = String(100000 + (hash32(`${platform}:${name}`) % 900000));
	return {
		display_name: display,
		name,
		url: `https://${l.host}/${name}`,
		image: `https://${l.cdn}/avatars/${pid}.jpg`,
		platform_id: pid,
	};
}

export type MediaKind = 'image' | 'video' | 'link_thumbnail' | 'link_only' | 'text';

function mediaKind(style: MediaStyle, r: () => number): MediaKind {
	const x = r();
	switch (style) {
		case 'image':
			return 'image';
		case 'video':
			return 'video';
		case 'none':
			return x < 0.3 ? 'link_only' : 'text';
		default:
			return x < 0.35 ? 'image' : x < 0.5 ? 'video' : x < 0.65 ? 'link_thumbnail' : x < 0.85 ? 'link_only' : 'text';
	}
}

function medium(platform: string, type: string, id: string, n: number, alt: string): Medium {
	const l = look(platform);
	const w = type === 'video' ? 1280 : 1080;
	const h = type === 'video' ? 720 : 1080 - (n % 3) * 120;
	return {
		type,
		url: `https://${l.cdn}/media/${id}_${n}.${type === 'video' ? 'mp4' : 'jpg'}`,
		preview_image_url: `https://${l.cdn}/media/${id}_${n}_preview.jpg`,
		width: w,
		height: h,
		alt_text: alt,
		platform_id: `${id}_${n}`,
	};
}

export interface GeneratedPost {
	platformId: string;
	url: string;
	message: string;
	description: string;
	poster: Poster;
	media: Medium[];
	mediaKind: MediaKind;
	counts: Record<EngagementField, number>;
	taggedUsers: string;
	referencedPost: ReferencedPost | null;
	resharedBy: Poster | null;
}

/**
 * One post for a (platform, term type, term) stream at position `seq` (1 = oldest).
 * `salt` is the service seed, so another seed gives other content.
 */
export function generatePost(
	platform: string,
	termType: string,
	term: string,
	seq: number,
	createdAt: number,
	salt: string,
): GeneratedPost {
	const bare = stripPrefix(term);
	const r = rng(hash32(`${salt}|${platform}|${termType}|${bare.toLowerCase()}|${seq}`));
	const l = look(platform);
	const handle = termType === 'username' ? slug(bare) : '';
	const firstName = pick(r, FIRST);
	const lastName = pick(r, LAST);
	const poster = handle
		? makePoster(platform, handle, r)
		: makePoster(platform, slug(`${firstName}${lastName}${int(r, 1, 99)}`), r, `${firstName} ${lastName}`);
	const platformId = `${l.idPrefix}${hash32(`${platform}|${termType}|${bare.toLowerCase()}`).toString(36)}${seq.toString(36).padStart(5, '0')}`;
	const url = `https://${l.host}/${poster.name}/posts/${platformId}`;
	const kind = mediaKind(l.media, r);
	let message: string;
	let description = '';
	if (termType === 'reviews') {
		message = `${'★'.repeat(int(r, 1, 5))} ${pick(r, REVIEWS)}`;
	} else {
		const tag = termType === 'hashtag' ? `#${bare}` : termType === 'mentions' ? bare : termType === 'channel' ? `r/${bare}` : '';
		const tagHtml = platform === 'Twitter' && termType === 'hashtag' ? `<a href="https://x.com/hashtag/${encodeURIComponent(bare)}">#${bare}</a>` : tag;
		message = `${pick(r, OPENERS)} ${pick(r, SUBJECTS)} ${tagHtml} ${pick(r, CLOSERS)}`.replace(/\s+/g, ' ').trim();
	}
	const media: Medium[] = [];
	const alt = `Photo by ${poster.display_name}`;
	if (kind === 'image') {
		const n = platform === 'Instagram' || platform === 'Flickr' ? int(r, 1, 3) : 1;
		for (let i = 0; i < n; i++) media.push(medium(platform, 'image', platformId, i, alt));
	} else if (kind === 'video') {
		media.push(medium(platform, 'video', platformId, 0, `Video by ${poster.display_name}`));
		description = `${pick(r, SUBJECTS)}: full video description, chapters and credits.`;
	} else if (kind === 'link_thumbnail' || kind === 'link_only') {
		const article = `https://${pick(r, ARTICLE_HOSTS)}/stories/${hash32(platformId) % 100000}`;
		message = `${message} ${article}`;
		description = `Shared article: ${pick(r, SUBJECTS)}`;
		// A thumbnail the platform itself supplies, hosted on the platform's CDN; never a link preview.
		if (kind === 'link_thumbnail') media.push(medium(platform, 'image', platformId, 0, 'Article thumbnail'));
	}
	if (platform === 'Twitter' && termType !== 'hashtag') message = `<p>${message}</p>`;
	const base = int(r, 0, 500);
	const counts: Record<EngagementField, number> = {
		like_count: base * 3 + int(r, 0, 40),
		comment_count: Math.floor(base / 4) + int(r, 0, 10),
		share_count: Math.floor(base / 6) + int(r, 0, 5),
		view_count: base * 40 + int(r, 0, 1000),
		quote_count: Math.floor(base / 20),
		bookmark_count: Math.floor(base / 10),
		impression_count: base * 60 + int(r, 0, 2000),
	};
	const tagged = r() < 0.3 ? [`@${slug(pick(r, FIRST))}`, `@${slug(pick(r, FIRST))}`].join(',') : '';
	let referencedPost: ReferencedPost | null = null;
	if (seq % 7 === 3 && termType !== 'reviews') {
		const refPoster = makePoster(platform, '', r);
		referencedPost = {
			poster: refPoster,
			message: `${pick(r, OPENERS)} ${pick(r, SUBJECTS)}`,
			url: `https://${l.host}/${refPoster.name}/posts/ref${platformId}`,
			platform_id: `ref${platformId}`,
			post_created_at: iso(createdAt - 3_600_000),
			media: [],
		};
	}
	const resharedBy = seq % 9 === 4 && termType !== 'reviews' ? makePoster(platform, '', r) : null;
	return { platformId, url, message, description, poster, media, mediaKind: kind, counts, taggedUsers: tagged, referencedPost, resharedBy };
}
