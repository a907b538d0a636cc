export type { Cache, SetOptions } from "./cache.js";
export { createMemoryCache } from "./memory-cache.js";
export { type CacheLogger, type RedisCache, type RedisCacheOptions, type RedisClient, createRedisCache } from "./redis-cache.js";
