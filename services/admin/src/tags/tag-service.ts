import type { CreateTagTypeBody, Tag, TagType, UpdateFeatureTagsBody, UpdateTagTypeBody } from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import { DuplicateKeyError } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { FeatureReader } from "../features/strategy-usage.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureDocument } from "../features/feature-model.js";
import { featureTagId, tagId, type TagStore, type TagTypeDocument } from "./tag-store.js";

/** The tag type every Unleash installation starts with. */
export const simpleTagType = { name: "simple", description: "Used to simplify filtering of features", icon: "#", color: "#FFFFFF" };

const toTagType = (doc: TagTypeDocument): TagType => ({ name: doc._id, description: doc.description, icon: doc.icon, color: doc.color });
const toTag = ({ type, value }: { type: string; value: string }): Tag => ({ value, type });

const typeNotFound = (name: string) => new NotFoundError(`Could not find tag type ${name}`);

export class TagService {
  constructor(
    private readonly deps: {
      tags: TagStore;
      features: FeatureReader;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  async seedBuiltIns(): Promise<void> {
    if ((await this.deps.tags.countTypes()) > 0) return;
    const { name, ...type } = simpleTagType;
    await this.deps.tags.insertType({ _id: name, ...type, createdAt: this.deps.clock() });
  }

  // Tag types

  async listTypes(): Promise<TagType[]> {
    return (await this.deps.tags.listTypes()).map(toTagType);
  }

  async getType(name: string): Promise<TagType> {
    const doc = await this.deps.tags.getType(name);
    if (!doc) throw typeNotFound(name);
    return toTagType(doc);
  }

  async validateTypeName(name: string): Promise<void> {
    if (await this.deps.tags.getType(name)) throw new NameExistsError(`There already exists a tag type with the name ${name}`);
  }

  async createType(input: CreateTagTypeBody, actor: Actor): Promise<TagType> {
    const doc: TagTypeDocument = {
      _id: input.name,
      description: input.description ?? null,
      icon: input.icon ?? null,
      color: input.color ?? null,
      createdAt: this.deps.clock(),
    };
    try {
      await this.deps.unitOfWork.run(async (tx) => {
        if (await this.deps.tags.getType(doc._id, tx.session))
          throw new NameExistsError(`There already exists a tag type with the name ${doc._id}`);
        await this.deps.tags.insertType(doc, tx.session);
        await tx.record({ type: "tag-type-created", actor, data: toTagType(doc) });
      });
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw new NameExistsError(`There already exists a tag type with the name ${doc._id}`);
      throw err;
    }
    return toTagType(doc);
  }

  /** Description, icon and color; the name is the identity. Omitted fields are left as they were. */
  async updateType(name: string, input: UpdateTagTypeBody, actor: Actor): Promise<void> {
    if (input.name !== undefined && input.name !== name) {
      throw new ValidationError("Invalid body.name: tag types cannot be renamed", [{ path: "body.name", message: "must match the path" }]);
    }
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.tags.getType(name, tx.session);
      if (!before) throw typeNotFound(name);
      const after: TagTypeDocument = {
        ...before,
        description: input.description === undefined ? before.description : input.description,
        icon: input.icon === undefined ? before.icon : input.icon,
        color: input.color === undefined ? before.color : input.color,
      };
      await this.deps.tags.replaceType(after, tx.session);
      await tx.record({ type: "tag-type-updated", actor, data: toTagType(after), preData: toTagType(before) });
    });
  }

  /** Deletes the type, its tags, and their places on features. */
  async deleteType(name: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.tags.getType(name, tx.session);
      if (!before) throw typeNotFound(name);
      await this.deps.tags.deleteType(name, tx.session);
      await tx.record({ type: "tag-type-deleted", actor, preData: toTagType(before) });
    });
  }

  // Tags

  async list(): Promise<Tag[]> {
    return (await this.deps.tags.listTags()).map(toTag);
  }

  async listByType(type: string): Promise<Tag[]> {
    if (!(await this.deps.tags.getType(type))) throw typeNotFound(type);
    return (await this.deps.tags.listTags(type)).map(toTag);
  }

  async get(type: string, value: string): Promise<Tag> {
    const doc = await this.deps.tags.getTag(type, value);
    if (!doc) throw new NotFoundError(`Could not find a ${type} tag with value ${value}`);
    return toTag(doc);
  }

  /** POST /api/admin/tags: the value arrives trimmed and 2..50 characters long (the contract checks it). */
  async create(tag: Tag, actor: Actor): Promise<Tag> {
    await this.deps.unitOfWork.run(async (tx) => {
      await this.assertTypeExists(tag.type, tx, "body.type");
      if (await this.deps.tags.getTag(tag.type, tag.value, tx.session)) {
        throw new NameExistsError(`A ${tag.type} tag with value ${tag.value} already exists`);
      }
      await this.insertTag(tag, actor, tx);
    });
    return toTag(tag);
  }

  /** Deleting an absent tag of an existing type is a no-op, as in Unleash. */
  async delete(type: string, value: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      await this.assertTypeExists(type, tx);
      if (await this.deps.tags.deleteTag(type, value, tx.session)) {
        await tx.record({ type: "tag-deleted", actor, preData: toTag({ type, value }) });
      }
    });
  }

  // Tags on features

  /** A flag's tags; for feature responses. */
  async tagsOf(feature: string): Promise<Tag[]> {
    return (await this.deps.tags.featureTags(feature)).map(toTag);
  }

  /** Flag name → which of these tags (`type:value`) it carries, for flags carrying any of them. */
  async flagsTagged(tags: readonly Tag[]): Promise<Map<string, Set<string>>> {
    const carried = new Map<string, Set<string>>();
    if (tags.length === 0) return carried;
    for (const use of await this.deps.tags.usesOf(tags)) {
      let set = carried.get(use.feature);
      if (!set) carried.set(use.feature, (set = new Set()));
      set.add(tagId(use.type, use.value));
    }
    return carried;
  }

  /** Flag name → its tags, for many flags in one read (feature responses). */
  async tagsOfMany(features: readonly string[]): Promise<Map<string, Tag[]>> {
    const byFeature = new Map<string, Tag[]>();
    for (const use of await this.deps.tags.featureTagsOf(features)) {
      byFeature.set(use.feature, [...(byFeature.get(use.feature) ?? []), toTag(use)]);
    }
    return byFeature;
  }

  async featureTags(featureName: string): Promise<Tag[]> {
    await this.requireFeature(featureName);
    return this.tagsOf(featureName);
  }

  /** Tags a flag, creating the tag when it is new. Tagging twice changes nothing. */
  async addFeatureTag(featureName: string, tag: Tag, actor: Actor): Promise<Tag> {
    const feature = await this.requireFeature(featureName);
    await this.deps.unitOfWork.run((tx) => this.tagFeature(feature, tag, actor, tx, "body"));
    return toTag(tag);
  }

  async updateFeatureTags(featureName: string, change: UpdateFeatureTagsBody, actor: Actor): Promise<Tag[]> {
    const feature = await this.requireFeature(featureName);
    await this.deps.unitOfWork.run(async (tx) => {
      for (const [i, tag] of change.addedTags.entries()) await this.tagFeature(feature, tag, actor, tx, `body.addedTags.${i}`);
      for (const tag of change.removedTags) await this.untagFeature(feature, tag, actor, tx);
    });
    return this.tagsOf(featureName);
  }

  async removeFeatureTag(featureName: string, tag: Tag, actor: Actor): Promise<void> {
    const feature = await this.requireFeature(featureName);
    await this.deps.unitOfWork.run((tx) => this.untagFeature(feature, tag, actor, tx));
  }

  /** Inside an import's transaction: the flag ends with exactly these tags, unknown tags created. */
  async replaceFeatureTags(tx: Transaction, feature: FeatureDocument, tags: readonly Tag[], actor: Actor): Promise<void> {
    const wanted = new Set(tags.map((tag) => tagId(tag.type, tag.value)));
    for (const existing of await this.deps.tags.featureTags(feature._id, tx.session)) {
      if (!wanted.has(tagId(existing.type, existing.value))) await this.untagFeature(feature, existing, actor, tx);
    }
    for (const [i, tag] of tags.entries()) await this.tagFeature(feature, tag, actor, tx, `data.featureTags.${i}`);
  }

  /** Inside a hard delete's transaction (a FeatureService removal step): the flags' tags go with them. */
  async removeTagsOfDeleted(tx: Transaction, names: string[]): Promise<void> {
    for (const name of names) await this.deps.tags.removeFeatureTags(name, tx.session);
  }

  private async tagFeature(feature: FeatureDocument, tag: Tag, actor: Actor, tx: Transaction, path: string): Promise<void> {
    await this.assertTypeExists(tag.type, tx, `${path}.type`);
    if (!(await this.deps.tags.getTag(tag.type, tag.value, tx.session))) await this.insertTag(tag, actor, tx);
    const added = await this.deps.tags.addFeatureTag(
      {
        _id: featureTagId(feature._id, tag.type, tag.value),
        feature: feature._id,
        type: tag.type,
        value: tag.value,
        createdAt: this.deps.clock(),
        createdByUserId: actor.userId,
      },
      tx.session,
    );
    if (added) {
      await tx.record({
        type: "feature-tagged",
        actor,
        project: feature.project,
        featureName: feature._id,
        data: toTag(tag),
        tags: (await this.deps.tags.featureTags(feature._id, tx.session)).map(toTag),
      });
    }
  }

  private async untagFeature(feature: FeatureDocument, tag: Tag, actor: Actor, tx: Transaction): Promise<void> {
    const tagsBefore = (await this.deps.tags.featureTags(feature._id, tx.session)).map(toTag);
    if (await this.deps.tags.removeFeatureTag(feature._id, tag.type, tag.value, tx.session)) {
      await tx.record({
        type: "feature-untagged",
        actor,
        project: feature.project,
        featureName: feature._id,
        preData: toTag(tag),
        tags: tagsBefore,
      });
    }
  }

  private async insertTag(tag: Tag, actor: Actor, tx: Transaction): Promise<void> {
    await this.deps.tags.insertTag(
      { _id: tagId(tag.type, tag.value), type: tag.type, value: tag.value, createdAt: this.deps.clock() },
      tx.session,
    );
    await tx.record({ type: "tag-created", actor, data: toTag(tag) });
  }

  /** A tag of an unknown type is bad input (400 naming the field) when the type comes from the body. */
  private async assertTypeExists(type: string, tx: Transaction, bodyPath?: string): Promise<void> {
    if (await this.deps.tags.getType(type, tx.session)) return;
    if (bodyPath)
      throw new ValidationError(`Invalid ${bodyPath}: tag type ${type} does not exist`, [{ path: bodyPath, message: "unknown tag type" }]);
    throw typeNotFound(type);
  }

  private async requireFeature(name: string): Promise<FeatureDocument> {
    const feature = await this.deps.features.find(name);
    if (!feature) throw new NotFoundError(`Could not find feature flag ${name}`);
    return feature;
  }
}
