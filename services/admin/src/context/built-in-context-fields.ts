/** The context fields a fresh Unleash 8 installation has; users may change or delete them. */
export const builtInContextFields = [
  { name: "environment", description: "Allows you to constrain on application environment", stickiness: false, sortOrder: 0 },
  { name: "userId", description: "Allows you to constrain on userId", stickiness: false, sortOrder: 1 },
  { name: "appName", description: "Allows you to constrain on application name", stickiness: false, sortOrder: 2 },
  { name: "currentTime", description: "Allows you to constrain on date values", stickiness: false, sortOrder: 3 },
  { name: "sessionId", description: "Allows you to constrain on sessionId", stickiness: true, sortOrder: 4 },
] as const;
