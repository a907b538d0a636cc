import { ALL, createTokenSecret, tokenDigest, type ApiTokenType, type TokenSet } from "@vexil/auth";
import type { Bus, Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { cacheKeys, topics } from "@vexil/contracts";
import { publishTokenGrants } from "@vexil/runtime";
import type { Actor } from "../access/actor.js";
import type { EnvironmentStore } from "../environments/environment-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { ApiTokenDocument, ApiTokenStore } from "./api-token-store.js";
import { toGrant } from "./token-grants.js";

export interface NewApiToken {
  tokenName: string;
  type: ApiTokenType;
  environment?: string;
  projects?: string[];
  expiresAt?: string | null;
}

/** A token as the API shows it to admins (Unleash shows secrets back). */
export interface ApiTokenView {
  secret: string;
  tokenName: string;
  username: string;
  type: ApiTokenType;
  environment: string;
  project: string;
  projects: string[];
  expiresAt: string | null;
  createdAt: string;
  seenAt: string | null;
  alias: string | null;
}

export function toApiTokenView(doc: ApiTokenDocument): ApiTokenView {
  return {
    secret: doc._id,
    tokenName: doc.tokenName,
    username: doc.tokenName,
    type: doc.type,
    environment: doc.environment,
    project: doc.projects.length === 1 ? doc.projects[0] : "[]",
    projects: doc.projects,
    expiresAt: doc.expiresAt?.toISOString() ?? null,
    createdAt: doc.createdAt.toISOString(),
    seenAt: doc.seenAt?.toISOString() ?? null,
    alias: doc.alias,
  };
}

/** What events say about a token: its scope and name, never the secret. */
function describeToken(doc: ApiTokenDocument) {
  return {
    tokenName: doc.tokenName,
    type: doc.type,
    environment: doc.environment,
    projects: doc.projects,
    expiresAt: doc.expiresAt?.toISOString() ?? null,
  };
}

export class ApiTokenService {
  constructor(
    private readonly deps: {
      tokens: ApiTokenStore;
      environments: EnvironmentStore;
      projects: ProjectStore;
      unitOfWork: UnitOfWork;
      cache: Cache;
      bus: Bus;
      /** This service's own token set, refreshed at once so its next request sees the change. */
      localTokens: TokenSet;
      clock: () => Date;
      logger?: Pick<Logger, "warn">;
    },
  ) {}

  async list(): Promise<ApiTokenView[]> {
    return (await this.deps.tokens.list()).map(toApiTokenView);
  }

  async listByName(tokenName: string): Promise<ApiTokenView[]> {
    return (await this.deps.tokens.list({ tokenName })).map(toApiTokenView);
  }

  async create(input: NewApiToken, actor: Actor): Promise<ApiTokenView> {
    const { environment, projects } = await this.validateScope(input);
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt <= this.deps.clock()) throw new ValidationError("expiresAt must be in the future");
    const secret = createTokenSecret({ projects, environment });
    const doc: ApiTokenDocument = {
      _id: secret,
      digest: tokenDigest(secret),
      tokenName: input.tokenName,
      type: input.type,
      environment,
      projects,
      expiresAt,
      createdAt: this.deps.clock(),
      seenAt: null,
      alias: null,
    };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.tokens.insert(doc, tx.session);
      await tx.record({
        type: "api-token-created",
        actor,
        environment,
        project: projects.length === 1 ? projects[0] : null,
        data: describeToken(doc),
      });
    });
    await this.share();
    return toApiTokenView(doc);
  }

  async updateExpiry(secret: string, expiresAt: string, actor: Actor): Promise<ApiTokenView> {
    const updated = await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.tokens.get(secret, tx.session);
      if (!before) throw new NotFoundError("Could not find an API token with that secret");
      const after: ApiTokenDocument = { ...before, expiresAt: new Date(expiresAt) };
      await this.deps.tokens.update(secret, { expiresAt: after.expiresAt }, tx.session);
      await tx.record({
        type: "api-token-updated",
        actor,
        environment: after.environment,
        data: describeToken(after),
        preData: describeToken(before),
      });
      return after;
    });
    await this.share();
    return toApiTokenView(updated);
  }

  /** Revokes a token everywhere; deleting an unknown secret changes nothing, as in Unleash. */
  async delete(secret: string, actor: Actor): Promise<void> {
    const deleted = await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.tokens.get(secret, tx.session);
      if (!before) return false;
      await this.deps.tokens.delete(secret, tx.session);
      await tx.record({ type: "api-token-deleted", actor, environment: before.environment, preData: describeToken(before) });
      return true;
    });
    if (deleted) await this.share();
  }

  /**
   * Shares the current grants with every service (cache, then the `tokens.changed` announcement).
   * A cache that is away does not fail the change that was committed: the announcement still goes
   * out, readers then ask here (`serveGrants`), and the cache is written again when it is back.
   */
  async share(): Promise<void> {
    await this.deps.localTokens.refresh();
    const grants = (await this.deps.tokens.list()).map(toGrant);
    try {
      await publishTokenGrants(this.deps.cache, this.deps.bus, grants);
    } catch (err) {
      this.deps.logger?.warn({ err }, "could not write the token grants to the cache; services will ask admin");
    }
  }

  /** Answers services that found the cache without the grants, and puts them back there. */
  serveGrants(): Subscription {
    return this.deps.bus.reply(
      topics.tokenGrants,
      async () => {
        const grants = (await this.deps.tokens.list()).map(toGrant);
        this.deps.cache.setJson(cacheKeys.tokenGrants, grants).catch(() => undefined);
        return grants;
      },
      { queue: "admin" },
    );
  }

  /** Records `seenAt` from the use reports every service sends. */
  recordUseReports(): Subscription {
    return this.deps.bus.subscribe(topics.tokensSeen, async ({ digests }) => {
      await this.deps.tokens.markSeen(digests, this.deps.clock());
    });
  }

  /** Admin tokens reach everything; other tokens one environment (or `*`) and existing projects. */
  private async validateScope(input: NewApiToken): Promise<{ environment: string; projects: string[] }> {
    const projects = input.projects && input.projects.length > 0 ? [...new Set(input.projects)] : [ALL];
    if (projects.includes(ALL) && projects.length > 1) {
      throw new ValidationError("projects is either [*] or a list of project names, not both");
    }
    if (input.type === "admin") {
      if ((input.environment ?? ALL) !== ALL || projects[0] !== ALL) {
        throw new ValidationError("Admin tokens reach every project and environment: environment and projects must be *");
      }
      return { environment: ALL, projects: [ALL] };
    }
    const environment = input.environment ?? "development";
    if (environment !== ALL && !(await this.deps.environments.get(environment))) {
      throw new ValidationError(`Environment=${environment} does not exist`);
    }
    for (const project of projects) {
      if (project !== ALL && !(await this.deps.projects.get(project))) {
        throw new ValidationError(`Project=${project} does not exist`);
      }
    }
    return { environment, projects };
  }
}
