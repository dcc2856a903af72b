/** The fake Social Post Aggregation Service: start() it, use `url` as base URL and `control` to steer it. */
export { start, createService, type FakeService } from './server';
export type { StartOptions, RequestLogEntry } from './service';
export type { Control, DeliveryView, RequestFilter } from './control';
export type { FaultSpec, FaultKind } from './faults';
export type { AnswerSpec } from './answers';
export type { MediaControl, MediaOverride, MediaRequest } from './media';
export type { SeedFeedOptions } from './feeds';
export type { DataConfigureOptions, DataFailOptions, PlatformStatus } from './dataApi';
export type { ForgedDelivery } from './webhooks';
export { KEYS, SEEDED, SEEDED_WEBHOOK_SECRETS, KEY_LABELS } from './seed';
export { Clock, DEFAULT_CLOCK_START } from './clock';
export { DATA_PLATFORMS, PLATFORM_CATALOG, PLANS, WEBHOOK_EVENTS, KEY_PREFIX } from './catalog';
export { DEFAULT_RETRY_DELAYS_MS } from './webhooks';
export { SHAPES, DEFAULT_SHAPES, SIGNATURE_HEADERS, type Shapes } from './shapes';
