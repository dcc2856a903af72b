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
