/**
 * In-process workflow harness: n8n-core 2.x runs workflow JSON with our nodes (loaded from
 * TypeScript source by type name), the real credential types, and a loopback service.
 *
 *   const result = await runWorkflow(
 *     { nodes: [
 *         { name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
 *         { name: 'Input', type: 'test.items', parameters: { items: [{ id: 'f1' }, { id: 'f2' }] } },
 *         { name: 'Feed', type: 'n8n-nodes-social-aggregator.socialAggregator',
 *           parameters: { resource: 'feed', operation: 'get', feedId: '={{ $json.id }}' } } ],
 *       connections: {
 *         Start: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
 *         Input: { main: [[{ node: 'Feed', type: 'main', index: 0 }]] } } },
 *     { credentials: { socialAggregatorApi: { apiKey, baseUrl } } },
 *   );
 *   result.items('Feed'); result.error('Feed'); result.executionError; result.dump();
 *
 *   const trigger = triggerHarness({ node: { type: '…socialAggregatorTrigger', parameters },
 *     credentials, mode: 'trigger', webhookUrl: 'https://n8n.example/webhook/x' });
 *   await trigger.activate(); await trigger.webhook({ headers, rawBody }); trigger.staticData;
 */
export * from './credentials';
export * from './runner';
export * from './triggers';
