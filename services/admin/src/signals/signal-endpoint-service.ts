import { randomBytes } from "node:crypto";
import { tokenDigest } from "@vexil/auth";
import type {
  CreateSignalEndpoint,
  PageQuery,
  ReceivedSignal,
  SharedSignalEndpoint,
  SignalEndpoint,
  SignalEndpointToken,
  UpdateSignalEndpoint,
} from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import { DuplicateKeyError } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { SignalLimits } from "./signal-limits.js";
import type { SignalEndpointDocument, SignalEndpointStore, SignalEndpointTokenDocument } from "./signal-endpoint-store.js";

/** Reads the signals an endpoint received; signal-ingest owns them. */
export interface SignalReader {
  list(endpointId: number, page: PageQuery): Promise<ReceivedSignal[]>;
}

export interface SignalEndpointServiceDeps {
  endpoints: SignalEndpointStore;
  unitOfWork: UnitOfWork;
  signals: SignalReader;
  /** Hands the current endpoints and token digests to signal-ingest (cache + announcement). */
  share: (endpoints: SharedSignalEndpoint[]) => Promise<void>;
  limits: Pick<SignalLimits, "endpoints" | "tokensPerEndpoint">;
  clock: () => Date;
}

function toToken(doc: SignalEndpointTokenDocument): SignalEndpointToken {
  return {
    id: doc._id,
    name: doc.name,
    signalEndpointId: doc.endpointId,
    createdAt: doc.createdAt.toISOString(),
    createdByUserId: doc.createdByUserId,
  };
}

function toEndpoint(doc: SignalEndpointDocument, tokens: SignalEndpointTokenDocument[]): SignalEndpoint {
  return {
    id: doc._id,
    enabled: doc.enabled,
    name: doc.name,
    description: doc.description,
    createdAt: doc.createdAt.toISOString(),
    createdByUserId: doc.createdByUserId,
    tokens: tokens.map(toToken),
  };
}

/** Event data about an endpoint: what it is, never a token secret or digest. */
function eventData({ _id, name, description, enabled }: SignalEndpointDocument) {
  return { id: _id, name, description, enabled };
}

function nameTaken(err: unknown, name: string): never {
  if (err instanceof DuplicateKeyError) throw new NameExistsError(`A signal endpoint named ${name} already exists`);
  throw err;
}

export class SignalEndpointService {
  constructor(private readonly deps: SignalEndpointServiceDeps) {}

  async list(): Promise<SignalEndpoint[]> {
    const [endpoints, tokens] = await Promise.all([this.deps.endpoints.list(), this.deps.endpoints.tokens()]);
    return endpoints.map((e) =>
      toEndpoint(
        e,
        tokens.filter((t) => t.endpointId === e._id),
      ),
    );
  }

  async create(input: CreateSignalEndpoint, actor: Actor): Promise<SignalEndpoint> {
    const { endpoints, unitOfWork, limits } = this.deps;
    const doc: SignalEndpointDocument = {
      _id: await endpoints.nextId(),
      name: input.name,
      description: input.description ?? null,
      enabled: input.enabled,
      createdAt: this.deps.clock(),
      createdByUserId: actor.userId,
    };
    await unitOfWork
      .run(async (tx) => {
        if ((await endpoints.count(tx.session)) >= limits.endpoints) {
          throw new ValidationError(`Only ${limits.endpoints} signal endpoints are allowed; delete one first`);
        }
        await endpoints.insert(doc, tx.session);
        await tx.record({ type: "signal-endpoint-created", actor, data: eventData(doc) });
      })
      .catch((err) => nameTaken(err, doc.name));
    await this.share();
    return toEndpoint(doc, []);
  }

  async update(id: number, input: UpdateSignalEndpoint, actor: Actor): Promise<SignalEndpoint> {
    const { endpoints, unitOfWork } = this.deps;
    const updated = await unitOfWork
      .run(async (tx) => {
        const before = await this.mustGet(id, tx.session);
        const after: SignalEndpointDocument = {
          ...before,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        };
        const { _id, ...fields } = after;
        await endpoints.update(id, fields, tx.session);
        await tx.record({ type: "signal-endpoint-updated", actor, data: eventData(after), preData: eventData(before) });
        return after;
      })
      .catch((err) => nameTaken(err, input.name ?? ""));
    await this.share();
    return toEndpoint(updated, await endpoints.tokens(id));
  }

  async setEnabled(id: number, enabled: boolean, actor: Actor): Promise<void> {
    await this.update(id, { enabled }, actor);
  }

  async delete(id: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.mustGet(id, tx.session);
      await this.deps.endpoints.delete(id, tx.session);
      await tx.record({ type: "signal-endpoint-deleted", actor, preData: eventData(before) });
    });
    await this.share();
  }

  async exists(id: number): Promise<boolean> {
    return (await this.deps.endpoints.get(id)) !== null;
  }

  async listTokens(endpointId: number): Promise<SignalEndpointToken[]> {
    await this.mustGet(endpointId);
    return (await this.deps.endpoints.tokens(endpointId)).map(toToken);
  }

  /** The secret is returned here and nowhere else: only its digest is kept. */
  async createToken(endpointId: number, name: string, actor: Actor): Promise<SignalEndpointToken & { token: string }> {
    const { endpoints, unitOfWork, limits } = this.deps;
    const secret = randomBytes(32).toString("base64url");
    const doc: SignalEndpointTokenDocument = {
      _id: await endpoints.nextTokenId(),
      endpointId,
      name,
      digest: tokenDigest(secret),
      createdAt: this.deps.clock(),
      createdByUserId: actor.userId,
    };
    await unitOfWork.run(async (tx) => {
      const endpoint = await this.mustGet(endpointId, tx.session);
      if ((await endpoints.countTokens(endpointId, tx.session)) >= limits.tokensPerEndpoint) {
        throw new ValidationError(`A signal endpoint can have at most ${limits.tokensPerEndpoint} tokens; delete one first`);
      }
      await endpoints.insertToken(doc, tx.session);
      await tx.record({
        type: "signal-endpoint-token-created",
        actor,
        data: { id: doc._id, name, signalEndpointId: endpointId, signalEndpointName: endpoint.name },
      });
    });
    await this.share();
    return { ...toToken(doc), token: secret };
  }

  async renameToken(endpointId: number, tokenId: number, name: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.mustGetToken(endpointId, tokenId, tx.session);
      await this.deps.endpoints.renameToken(tokenId, name, tx.session);
      await tx.record({
        type: "signal-endpoint-token-updated",
        actor,
        data: { id: tokenId, name, signalEndpointId: endpointId },
        preData: { id: tokenId, name: before.name, signalEndpointId: endpointId },
      });
    });
    await this.share();
  }

  async deleteToken(endpointId: number, tokenId: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.mustGetToken(endpointId, tokenId, tx.session);
      await this.deps.endpoints.deleteToken(tokenId, tx.session);
      await tx.record({
        type: "signal-endpoint-token-deleted",
        actor,
        preData: { id: tokenId, name: before.name, signalEndpointId: endpointId },
      });
    });
    await this.share();
  }

  async listSignals(endpointId: number, page: PageQuery): Promise<ReceivedSignal[]> {
    await this.mustGet(endpointId);
    return this.deps.signals.list(endpointId, page);
  }

  /** Publishes every endpoint with its token digests, for signal-ingest. */
  async share(): Promise<void> {
    await this.deps.share(await this.shared());
  }

  /** Every endpoint with its token digests, as signal-ingest knows them. */
  async shared(): Promise<SharedSignalEndpoint[]> {
    const [endpoints, tokens] = await Promise.all([this.deps.endpoints.list(), this.deps.endpoints.tokens()]);
    return endpoints.map((e) => ({
      id: e._id,
      name: e.name,
      enabled: e.enabled,
      tokens: tokens.filter((t) => t.endpointId === e._id).map((t) => ({ id: t._id, name: t.name, digest: t.digest })),
    }));
  }

  private async mustGet(id: number, session?: Parameters<SignalEndpointStore["get"]>[1]): Promise<SignalEndpointDocument> {
    const endpoint = await this.deps.endpoints.get(id, session);
    if (!endpoint) throw new NotFoundError(`Could not find signal endpoint with id ${id}`);
    return endpoint;
  }

  private async mustGetToken(
    endpointId: number,
    tokenId: number,
    session?: Parameters<SignalEndpointStore["get"]>[1],
  ): Promise<SignalEndpointTokenDocument> {
    await this.mustGet(endpointId, session);
    const token = await this.deps.endpoints.getToken(endpointId, tokenId, session);
    if (!token) throw new NotFoundError(`Could not find token ${tokenId} of signal endpoint ${endpointId}`);
    return token;
  }
}
