export { startClusterGateway } from "./cluster-gateway.js";
export { clusterGatewayEnv, gatewayEnv, type GatewayConfig } from "./config.js";
export { createProxyRouter, type ServiceAddresses } from "./proxy.js";
export { publicRoutes, routeFor } from "./routes.js";
export { startSystem, type RunningSystem, type SystemSettings } from "./system.js";
