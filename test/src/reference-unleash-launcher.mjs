// Starts unleash-server (the reference for the parity harness and the benchmark) with plain node.
// `reference-unleash.ts` spawns it in the install folder; Unleash reads its configuration (database,
// port, tokens, limits) from the environment, and the entry point comes from UNLEASH_SERVER_ENTRY.
const { start } = await import(process.env.UNLEASH_SERVER_ENTRY);
await start({});
