/**
 * End-to-end library: a real n8n (provisioned by scripts/provision-n8n.sh) with the packed
 * package installed as a community package, the fake service as backend, and the editor in
 * headless Chromium. See test/e2e/README.md.
 */
export { startBackend, startStandIn, fakeServiceAvailable, type Backend, type FakeServiceLike } from './backend';
export { openEditor, openEditorAt, openWorkflow, openNodePanel, saveScreenshot, playwrightAvailable, OUTPUT_DIR, CHROMIUM_ARGS, type EditorSession } from './browser';
export { BatchRun, ExecutionResult, parseRunOutput, type BatchEntry } from './execution';
export { laneServer, LANE_DIR_ENV, type LaneServerInfo } from './lane';
export { everyTenSeconds, nextPoll, pollsAtRest } from './polls';
export { LocalRegistry } from './registry';
export { N8n, DEFAULT_OWNER, registryEnv, type InstalledPackage, type N8nOptions, type CredentialInput, type Owner, type ExecutionSummary, type StartOptions } from './n8n';
export { N8nRest, UNFINISHED, type WorkflowSummary } from './rest';
export { packPackage, installCommunityPackage, type PackedPackage } from './pack';
export { resolveRuntime, requireFromN8n, REPO_ROOT, PACKAGE_NAME, type N8nRuntime } from './runtime';
export { e2eSuite, recordTiming, type E2eContext, type E2eSuiteOptions } from './suite';
export { postSigned } from './signed';
export { freePort, waitFor, sleep, randomId, runCommand, setSignalCleanup, killGroup, LOOPBACK } from './util';
export {
	workflow,
	node,
	manualTrigger,
	pinNewPosts,
	loadWorkflow,
	prepareWorkflow,
	findNode,
	webhookPath,
	NODE_TYPES,
	CREDENTIAL_TYPE,
	type WorkflowSpec,
	type WorkflowNode,
	type NodeInput,
	type CredentialRef,
} from './workflow';
