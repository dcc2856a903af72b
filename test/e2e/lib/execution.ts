import type { IDataObject, INodeExecutionData, IRun, ITaskData } from 'n8n-workflow';

/**
 * Parses what `n8n execute --rawOutput` prints: log lines, the run as pretty JSON, and
 * possibly more log lines after it. Takes the first balanced `{...}` that parses as a run.
 */
export function parseRunOutput(stdout: string): IRun | undefined {
	let start = stdout.indexOf('{');
	while (start !== -1) {
		const end = matchingBrace(stdout, start);
		if (end !== -1) {
			try {
				const parsed = JSON.parse(stdout.slice(start, end + 1)) as IRun;
				if (parsed !== null && typeof parsed === 'object' && 'data' in parsed && 'status' in parsed) return parsed;
			} catch {
				// a brace inside a log line: try the next one
			}
		}
		start = stdout.indexOf('{', start + 1);
	}
	return undefined;
}

/** The index of the `}` closing the `{` at `start` (string-aware), or -1. */
function matchingBrace(text: string, start: number): number {
	let depth = 0;
	let inString = false;
	for (let index = start; index < text.length; index++) {
		const char = text[index];
		if (inString) {
			if (char === '\\') index++;
			else if (char === '"') inString = false;
			continue;
		}
		if (char === '"') inString = true;
		else if (char === '{') depth++;
		else if (char === '}') {
			depth--;
			if (depth === 0) return index;
		}
	}
	return -1;
}

/** One workflow run, from `n8n execute` or from n8n's execution record. */
export class ExecutionResult {
	constructor(
		readonly run: IRun,
		/** wall time of the `n8n execute` process (0 for stored executions) */
		readonly wallMs: number,
		/** what the process printed (secrets redacted) */
		readonly output: string,
	) {}

	get status(): string {
		return this.run.status;
	}

	/** the workflow's own run time, from n8n's execution record */
	get runMs(): number {
		const { startedAt, stoppedAt } = this.run;
		if (!stoppedAt) return Number.NaN;
		return new Date(stoppedAt).getTime() - new Date(startedAt).getTime();
	}

	get error(): IDataObject | undefined {
		return this.run.data.resultData.error as unknown as IDataObject | undefined;
	}

	get lastNodeExecuted(): string | undefined {
		return this.run.data.resultData.lastNodeExecuted;
	}

	/** The names of the nodes that ran, in the order n8n recorded them. */
	get nodesRun(): string[] {
		return Object.keys(this.run.data.resultData.runData);
	}

	taskData(nodeName: string, runIndex = 0): ITaskData {
		const runs = this.run.data.resultData.runData[nodeName];
		if (!runs?.[runIndex]) {
			throw new Error(`node "${nodeName}" has no run ${runIndex}; nodes that ran: ${this.nodesRun.join(', ') || 'none'}`);
		}
		return runs[runIndex];
	}

	/** Full items (json, pairedItem, binary) of a node's output. */
	outputItems(nodeName: string, { output = 0, runIndex = 0 } = {}): INodeExecutionData[] {
		return this.taskData(nodeName, runIndex).data?.main?.[output] ?? [];
	}

	/** The `json` of each item of a node's output (output 0 unless told). */
	items(nodeName: string, options: { output?: number; runIndex?: number } = {}): IDataObject[] {
		return this.outputItems(nodeName, options).map((item) => item.json);
	}

	/** The error a node raised, if it failed. */
	nodeError(nodeName: string, runIndex = 0): IDataObject | undefined {
		return this.taskData(nodeName, runIndex).error as unknown as IDataObject | undefined;
	}

	/** Throws with n8n's error when the run did not succeed. */
	assertSuccess(): this {
		if (this.status !== 'success' || this.error) {
			const message = this.error ? `${String(this.error.message)} ${String(this.error.description ?? '')}` : '';
			throw new Error(`workflow run ended ${this.status}: ${message}\n${this.output.slice(-3000)}`);
		}
		return this;
	}
}

/** One workflow of an `n8n execute-batch` run. */
export interface BatchEntry {
	workflowId: string;
	name: string;
	/** n8n's verdict: success, error, warning (an error n8n deems transient), or missing */
	status: string;
	error?: string;
	/** the run, when it succeeded */
	result?: ExecutionResult;
}

/** The outcome of `n8n execute-batch`: each workflow's run, by id or by name. */
export class BatchRun {
	constructor(
		readonly entries: ReadonlyMap<string, BatchEntry>,
		/** wall time of the one n8n process */
		readonly wallMs: number,
	) {}

	entry(idOrName: string): BatchEntry {
		const found = this.entries.get(idOrName) ?? [...this.entries.values()].find((entry) => entry.name === idOrName);
		if (!found) throw new Error(`no workflow "${idOrName}" in this batch: ${[...this.entries.values()].map((e) => e.name).join(', ')}`);
		return found;
	}

	/** The successful run of a workflow; throws with n8n's error otherwise. */
	result(idOrName: string): ExecutionResult {
		const entry = this.entry(idOrName);
		if (entry.status !== 'success' || !entry.result) {
			throw new Error(`workflow "${entry.name}" ended ${entry.status}: ${entry.error ?? 'no run data'}`);
		}
		return entry.result;
	}

	/** The sum of the workflows' own run times (n8n's execution records). */
	get runMs(): number {
		let total = 0;
		for (const entry of this.entries.values()) if (entry.result) total += entry.result.runMs;
		return total;
	}
}
