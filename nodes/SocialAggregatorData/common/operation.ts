import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** An operation answers the items of one input item; the router pairs them with it. */
export type Operation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]>;
