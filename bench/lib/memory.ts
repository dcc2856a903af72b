/**
 * B6: the resident memory of n8n's process while it runs one execution, read from /proc.
 *
 * `VmRSS` of `/proc/<pid>/status` is what the process holds now; `VmHWM` is the most it has
 * held since it started, kept by the kernel (no sample can miss it), but it cannot be reset.
 * So each run gets a fresh n8n process (bench/cases.ts restarts it), and the sampler reads
 * `VmRSS` every `intervalMs` from just before the run until n8n's record says it has stopped,
 * plus `VmHWM` before and after: when `VmHWM` grew during the run, the run set the process's
 * peak and `VmHWM` is it exactly; otherwise the peak stayed below the start's own and the
 * sampled maximum is the best there is. The processes n8n spawned (its task runner) are
 * sampled too, as a tree.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS and VmHWM of a process in KiB; undefined once it is gone. */
export function processMemory(pid: number): { rssKb: number; hwmKb: number } | undefined {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
		return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
	} catch {
		return undefined;
	}
}

/** Every process below `root` (children, their children, …), from the parent ids in /proc. */
export function descendants(root: number): number[] {
	const parents = new Map<number, number[]>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			// pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			const list = parents.get(ppid) ?? [];
			list.push(Number(entry));
			parents.set(ppid, list);
		} catch {
			// gone meanwhile
		}
	}
	const result: number[] = [];
	const queue = [root];
	while (queue.length > 0) {
		for (const child of parents.get(queue.shift()!) ?? []) {
			result.push(child);
			queue.push(child);
		}
	}
	return result;
}

export interface MemoryRun {
	/** the n8n process (it runs the executions): RSS just before the run, peak during it */
	idleKb: number;
	peakKb: number;
	/** whether the peak is VmHWM (the run set the process's high-water mark) or the sampled maximum */
	exact: boolean;
	/** n8n and everything it spawned: summed RSS before, and the highest sum sampled */
	treeIdleKb: number;
	treePeakKb: number;
	/** processes in the tree (n8n included) */
	processes: number;
	samples: number;
}

/** Samples the RSS of `pid` and its descendants until `stop()`. */
export function sampleMemory(pid: number, intervalMs = 20): { stop(): MemoryRun } {
	const before = processMemory(pid);
	if (!before) throw new Error(`no process ${pid} to measure`);
	let tree = descendants(pid);
	let treeRefreshed = Date.now();
	const treeSum = () => tree.reduce((sum, child) => sum + (processMemory(child)?.rssKb ?? 0), 0);
	const treeIdleKb = before.rssKb + treeSum();
	let peakKb = before.rssKb;
	let treePeakKb = treeIdleKb;
	let processes = tree.length + 1;
	let samples = 0;
	const sample = () => {
		const now = processMemory(pid);
		if (!now) return;
		if (Date.now() - treeRefreshed > 250) {
			tree = descendants(pid);
			treeRefreshed = Date.now();
			processes = Math.max(processes, tree.length + 1);
		}
		samples++;
		peakKb = Math.max(peakKb, now.rssKb);
		treePeakKb = Math.max(treePeakKb, now.rssKb + treeSum());
	};
	const timer = setInterval(sample, intervalMs);
	return {
		stop() {
			clearInterval(timer);
			sample();
			const after = processMemory(pid);
			const exact = after !== undefined && after.hwmKb > before.hwmKb;
			return {
				idleKb: before.rssKb,
				peakKb: exact ? Math.max(after.hwmKb, peakKb) : peakKb,
				exact,
				treeIdleKb,
				treePeakKb: exact ? Math.max(treePeakKb, treePeakKb - peakKb + after.hwmKb) : treePeakKb,
				processes,
				samples,
			};
		},
	};
}

export const mib = (kb: number) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MiB` : '-');
