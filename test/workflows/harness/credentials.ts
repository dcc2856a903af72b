import * as fs from 'node:fs';
import * as path from 'node:path';

import { Credentials } from 'n8n-core';
import {
	Expression,
	ICredentialsHelper,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type IWorkflowExecuteAdditionalData,
	type Workflow,
} from 'n8n-workflow';

/** Root of the package: credentials/ and nodes/ live here. */
export const PACKAGE_ROOT = path.resolve(__dirname, '../../..');

/** Credentials by type name, as a test supplies them: `{ socialAggregatorApi: { apiKey, baseUrl } }`. */
export type CredentialsByType = Record<string, ICredentialDataDecryptedObject>;

const credentialTypeCache = new Map<string, ICredentialType>();

/**
 * The credential type class `name` from `credentials/<Name>.credentials.ts` (n8n's own
 * naming convention), loaded on first use, or one registered with `registerCredentialType`.
 */
export function getCredentialType(name: string): ICredentialType {
	const cached = credentialTypeCache.get(name);
	if (cached) return cached;
	const className = name.charAt(0).toUpperCase() + name.slice(1);
	const file = path.join(PACKAGE_ROOT, 'credentials', `${className}.credentials.ts`);
	if (!fs.existsSync(file)) {
		throw new Error(`Unknown credential type "${name}": ${path.relative(PACKAGE_ROOT, file)} does not exist`);
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(file) as Record<string, new () => ICredentialType>;
	const Class = exported[className];
	if (typeof Class !== 'function') throw new Error(`${file} does not export class ${className}`);
	const instance = new Class();
	if (instance.name !== name) throw new Error(`${file}: class ${className} has name "${instance.name}", expected "${name}"`);
	credentialTypeCache.set(name, instance);
	return instance;
}

/** Make a credential type known without a file (test fixtures). */
export function registerCredentialType(type: ICredentialType): void {
	credentialTypeCache.set(type.name, type);
}

/** Fills in the defaults of the credential type's properties, like n8n does before a node sees them. */
function withDefaults(type: ICredentialType, data: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	const result: ICredentialDataDecryptedObject = {};
	for (const property of type.properties) {
		if (property.default !== undefined && property.type !== 'notice') {
			result[property.name] = property.default as ICredentialDataDecryptedObject[string];
		}
	}
	return { ...result, ...data };
}

/**
 * Resolves one value of a declarative `authenticate` against `$credentials`: values starting
 * with `=` are n8n expressions (`=Bearer {{$credentials.apiKey}}`); others are literal.
 */
function resolveAuthValue(
	value: unknown,
	credentials: ICredentialDataDecryptedObject,
	workflow: Workflow | undefined,
	node: INode | undefined,
): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	const additionalKeys = { $credentials: credentials };
	const resolved =
		workflow && node
			? workflow.expression.getSimpleParameterValue(node, value, 'internal', additionalKeys, undefined, '')
			: Expression.resolveWithoutWorkflow(value, additionalKeys);
	if (resolved === null || resolved === undefined || typeof resolved === 'function') return '';
	return typeof resolved === 'object' ? resolved : String(resolved);
}

/**
 * The credentials helper n8n-core asks for decrypted credentials and to authenticate every
 * request, programmatic (`httpRequestWithAuthentication`) and declarative routing alike.
 * It applies a credential type's `authenticate` the way n8n's server does: a function is
 * called; a `generic` object has each of its `headers`/`qs`/`body`/`auth` entries resolved
 * (key and value) against `$credentials` and merged into the request.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	/**
	 * @param credentials what `getCredentials(type)` answers, by type name
	 * @param requested receives the type name of every credential a node asked for, in order
	 */
	constructor(
		private readonly credentials: CredentialsByType,
		readonly requested: string[] = [],
	) {
		super();
	}

	getParentTypes(name: string): string[] {
		const extendsTypes = getCredentialType(name).extends ?? [];
		return extendsTypes.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const request = requestOptions as IHttpRequestOptions;
		const { authenticate } = getCredentialType(typeName);
		if (authenticate === undefined) return request;
		if (typeof authenticate === 'function') return await authenticate(credentials, request);
		if (authenticate.type !== 'generic') {
			throw new Error(`Credential type "${typeName}": authenticate type "${authenticate.type as string}" is not supported`);
		}
		const target = request as unknown as Record<string, Record<string, unknown> | undefined>;
		for (const [section, entries] of Object.entries(authenticate.properties)) {
			const resolvedEntries: Record<string, unknown> = {};
			for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
				const resolvedKey = String(resolveAuthValue(key, credentials, workflow, node));
				resolvedEntries[resolvedKey] = resolveAuthValue(value, credentials, workflow, node);
			}
			target[section] = { ...(target[section] ?? {}), ...resolvedEntries };
		}
		return request;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		_node: INode,
		_credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		return new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.credentials[type];
		if (data === undefined) {
			throw new Error(`The test supplied no credentials of type "${type}"`);
		}
		this.requested.push(type);
		return withDefaults(getCredentialType(type), data);
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return getCredentialType(type).properties;
	}
}
