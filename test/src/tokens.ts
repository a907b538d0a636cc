import { randomBytes } from "node:crypto";

/** A token secret in Unleash's shape (`<project>:<environment>.<random>`), for the INIT_*_API_TOKENS settings. */
export const tokenSecret = (project: string, environment: string) => `${project}:${environment}.${randomBytes(28).toString("hex")}`;
