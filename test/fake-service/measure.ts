/**
 * Start-up time and loopback throughput of the fake service.
 *   npx ts-node --transpile-only test/fake-service/measure.ts [count]
 */
import { start } from './server';

async function main(): Promise<void> {
	const count = Number(process.argv[2] ?? 1000);
	const t0 = performance.now();
	const fake = await start({ port: 0, limits: { enabled: false } });
	const startMs = performance.now() - t0;
	const headers = { Authorization: `Bearer ${fake.control.keys.owner}` };
	const run = async (path: string): Promise<{ totalMs: number; p50: number; p99: number }> => {
		const times: number[] = [];
		// Warm-up (connection, JIT).
		for (let i = 0; i < 20; i++) await (await fetch(fake.url + path, { headers })).arrayBuffer();
		const begin = performance.now();
		for (let i = 0; i < count; i++) {
			const s = performance.now();
			const res = await fetch(fake.url + path, { headers });
			await res.arrayBuffer();
			if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
			times.push(performance.now() - s);
		}
		const totalMs = performance.now() - begin;
		times.sort((a, b) => a - b);
		return { totalMs, p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
	};
	const s5000 = performance.now();
	const { feedId } = fake.control.seedFeed({ posts: 5000 });
	const seedMs = performance.now() - s5000;
	const rows: Array<[string, Awaited<ReturnType<typeof run>>]> = [];
	for (const path of ['/account', '/feeds/1', `/feeds/${feedId}/posts?per_page=100&page=25`, '/data/posts?term=%23acme&platforms=Twitter,Instagram,TikTok']) {
		rows.push([path, await run(path)]);
	}
	await fake.close();
	const f = (n: number) => n.toFixed(2);
	process.stdout.write(`start(): ${f(startMs)} ms (seed state built and listening)\n`);
	process.stdout.write(`seedFeed({ posts: 5000 }): ${f(seedMs)} ms\n`);
	for (const [path, r] of rows) {
		process.stdout.write(`${count} sequential GET ${path}: ${f(r.totalMs)} ms total, ${f(r.totalMs / count)} ms/request, p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms\n`);
	}
}

main().catch((err) => {
	process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
