import type { ContextField, UpsertContextFieldBody } from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import { DuplicateKeyError } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { LegalValues } from "../constraints/constraint-validation.js";
import { strategyUses, usageCounts, type FeatureReader } from "../features/strategy-usage.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { builtInContextFields } from "./built-in-context-fields.js";
import type { ContextFieldDocument, ContextFieldStore } from "./context-field-store.js";

function toContextField(doc: ContextFieldDocument): ContextField {
  return {
    name: doc._id,
    description: doc.description,
    stickiness: doc.stickiness,
    sortOrder: doc.sortOrder,
    legalValues: doc.legalValues,
    createdAt: doc.createdAt.toISOString(),
  };
}

const notFound = (name: string) => new NotFoundError(`Could not find context field with name ${name}`);

export class ContextService {
  constructor(
    private readonly deps: {
      contextFields: ContextFieldStore;
      features: FeatureReader;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  /** Gives a new installation Unleash's built-in fields; an installation that has fields keeps them. */
  async seedBuiltIns(): Promise<void> {
    if ((await this.deps.contextFields.count()) > 0) return;
    const createdAt = this.deps.clock();
    for (const { name, ...field } of builtInContextFields) {
      await this.deps.contextFields.insert({ _id: name, ...field, legalValues: [], createdAt });
    }
  }

  /** With usage counts: the flags and projects whose strategy constraints name the field. */
  async list(): Promise<ContextField[]> {
    const [fields, features] = await Promise.all([this.deps.contextFields.list(), this.deps.features.listAll()]);
    const uses = [...strategyUses(features.filter((f) => !f.archived))];
    return fields.map((doc) => ({
      ...toContextField(doc),
      ...usageCounts(uses.filter(({ strategy }) => strategy.constraints.some((c) => c.contextName === doc._id))),
    }));
  }

  async get(name: string): Promise<ContextField> {
    const doc = await this.deps.contextFields.get(name);
    if (!doc) throw notFound(name);
    return toContextField(doc);
  }

  async validateName(name: string): Promise<void> {
    if (await this.deps.contextFields.get(name)) throw new NameExistsError("A context field with that name already exist");
  }

  async create(input: UpsertContextFieldBody, actor: Actor): Promise<ContextField> {
    const doc: ContextFieldDocument = {
      _id: input.name,
      description: input.description ?? null,
      stickiness: input.stickiness ?? false,
      sortOrder: input.sortOrder ?? 0,
      legalValues: input.legalValues ?? [],
      createdAt: this.deps.clock(),
    };
    try {
      await this.deps.unitOfWork.run(async (tx) => {
        if (await this.deps.contextFields.get(doc._id, tx.session))
          throw new NameExistsError("A context field with that name already exist");
        await this.deps.contextFields.insert(doc, tx.session);
        await tx.record({ type: "context-field-created", actor, data: toContextField(doc) });
      });
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw new NameExistsError("A context field with that name already exist");
      throw err;
    }
    return toContextField(doc);
  }

  /** A replacement, as in Unleash: omitted fields return to their defaults; `sortOrder` is kept unless given. */
  async update(name: string, input: Partial<UpsertContextFieldBody>, actor: Actor): Promise<void> {
    if (input.name !== undefined && input.name !== name) {
      throw new ValidationError(`Invalid body.name: must match the path (${name}); context fields cannot be renamed`, [
        { path: "body.name", message: "must match the field name in the path" },
      ]);
    }
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.contextFields.get(name, tx.session);
      if (!before) throw notFound(name);
      const after: ContextFieldDocument = {
        ...before,
        description: input.description ?? null,
        stickiness: input.stickiness ?? false,
        sortOrder: input.sortOrder ?? before.sortOrder,
        legalValues: input.legalValues ?? [],
      };
      await this.deps.contextFields.replace(after, tx.session);
      await tx.record({ type: "context-field-updated", actor, data: toContextField(after), preData: toContextField(before) });
    });
  }

  async delete(name: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.contextFields.get(name, tx.session);
      if (!before) throw notFound(name);
      await this.deps.contextFields.delete(name, tx.session);
      await tx.record({ type: "context-field-deleted", actor, preData: toContextField(before) });
    });
  }

  /** Legal values per field, for constraint validation; fields without any are left out. */
  async legalValues(): Promise<LegalValues> {
    const fields = await this.deps.contextFields.list();
    return new Map(fields.filter((f) => f.legalValues.length > 0).map((f) => [f._id, f.legalValues.map((v) => v.value)]));
  }
}
