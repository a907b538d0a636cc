import type { Constraint, Segment, SegmentStrategies, SegmentUpsert } from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import { DuplicateKeyError } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { ConstraintValidator } from "../constraints/constraint-validation.js";
import { strategyUses, usageCounts, type FeatureReader, type StrategyUse } from "../features/strategy-usage.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { SegmentDocument } from "../features/feature-model.js";
import type { SegmentLimits } from "./segment-limits.js";
import type { SegmentStore } from "./segment-store.js";

function toSegment(doc: SegmentDocument): Segment {
  return {
    id: doc._id,
    name: doc.name,
    description: doc.description,
    constraints: doc.constraints,
    ...(doc.project ? { project: doc.project } : {}),
    createdBy: doc.createdBy,
    createdAt: doc.createdAt.toISOString(),
  };
}

/** Each constraint counts its `values`, or 1 for a single `value`. */
export function countConstraintValues(constraints: readonly Constraint[]): number {
  return constraints.reduce((sum, c) => sum + (c.values?.length ?? 0) + (c.value !== undefined ? 1 : 0), 0);
}

/** A strategy that an open change request proposes (`pendingStrategies` of the change-request slice). */
export interface ProposedStrategy {
  /** The strategy's id when the change updates an existing one. */
  id?: string;
  projectId: string;
  featureName: string;
  strategyName: string;
  environment: string;
  segments: number[];
  changeRequest: { id: number; title: string };
}

/** Flags and projects using a segment, now or once pending change requests apply (as Unleash counts). */
function segmentUsage(uses: readonly StrategyUse[], proposed: readonly ProposedStrategy[]) {
  return usageCounts([...uses, ...proposed.map((p) => ({ feature: { _id: p.featureName, project: p.projectId } }))]);
}

const notFound = (id: number) => new NotFoundError(`No segment exists with ID "${id}"`);
const nameTaken = (name: string) => new NameExistsError(`A segment named ${name} already exists`);

export class SegmentService {
  constructor(
    private readonly deps: {
      segments: SegmentStore;
      features: FeatureReader;
      /** Strategies proposed by open change requests. */
      proposedStrategies: () => Promise<ProposedStrategy[]>;
      projects: { exists(project: string): Promise<boolean> };
      validateConstraints: ConstraintValidator;
      unitOfWork: UnitOfWork;
      nextId: () => Promise<number>;
      clock: () => Date;
      limits: SegmentLimits;
    },
  ) {}

  /** Every segment as stored; the snapshot builder inlines them into strategies. */
  listAll(): Promise<SegmentDocument[]> {
    return this.deps.segments.list();
  }

  /** The segment, or null when there is none (a failing store still throws). */
  find(id: number): Promise<SegmentDocument | null> {
    return this.deps.segments.get(id);
  }

  async getDocument(id: number): Promise<SegmentDocument> {
    const doc = await this.deps.segments.get(id);
    if (!doc) throw notFound(id);
    return doc;
  }

  /**
   * What a strategy in `project` may reference: at most `strategySegments` segments, each existing
   * and either global or the project's own. `path` names the field in errors (`segments`).
   */
  async assertUsableInStrategy(ids: readonly number[], project: string, path = "segments"): Promise<void> {
    if (ids.length === 0) return;
    const { strategySegments } = this.deps.limits;
    if (ids.length > strategySegments) {
      throw new ValidationError(`Invalid ${path}: a strategy may use at most ${strategySegments} segments, got ${ids.length}`, [
        { path, message: `at most ${strategySegments} segments per strategy` },
      ]);
    }
    const found = new Map((await this.deps.segments.getMany(ids)).map((s) => [s._id, s]));
    ids.forEach((id, i) => {
      const segment = found.get(id);
      if (!segment)
        throw new ValidationError(`Invalid ${path}.${i}: no segment exists with ID "${id}"`, [
          { path: `${path}.${i}`, message: "unknown segment" },
        ]);
      if (segment.project && segment.project !== project) {
        throw new ValidationError(`Invalid ${path}.${i}: segment ${id} belongs to project ${segment.project}, not ${project}`, [
          { path: `${path}.${i}`, message: `segment of project ${segment.project}` },
        ]);
      }
    });
  }

  async list(filter: { project?: string } = {}): Promise<Segment[]> {
    const [segments, features, proposed] = await Promise.all([
      this.deps.segments.list(),
      this.deps.features.listAll(),
      this.deps.proposedStrategies(),
    ]);
    const uses = [...strategyUses(features)];
    return segments
      .filter((s) => filter.project === undefined || s.project === null || s.project === filter.project)
      .map((s) => ({
        ...toSegment(s),
        ...segmentUsage(
          uses.filter((u) => u.strategy.segments.includes(s._id)),
          proposed.filter((p) => p.segments.includes(s._id)),
        ),
      }));
  }

  async listForProject(project: string): Promise<Segment[]> {
    if (!(await this.deps.projects.exists(project))) throw new NotFoundError(`Could not find project ${project}`);
    return this.list({ project });
  }

  async get(id: number): Promise<Segment> {
    const doc = await this.getDocument(id);
    return { ...toSegment(doc), ...segmentUsage(await this.usesOf(id), await this.proposedUsesOf(id)) };
  }

  async strategiesUsing(id: number): Promise<SegmentStrategies> {
    await this.getDocument(id);
    const uses = await this.usesOf(id);
    return {
      strategies: uses.map(({ feature, environment, strategy }) => ({
        id: strategy.id,
        projectId: feature.project,
        featureName: feature._id,
        strategyName: strategy.name,
        environment,
      })),
      changeRequestStrategies: (await this.proposedUsesOf(id)).map(({ segments: _segments, ...strategy }) => strategy),
    };
  }

  async validateName(name: string): Promise<void> {
    if (await this.deps.segments.findByName(name)) throw nameTaken(name);
  }

  async create(input: SegmentUpsert, actor: Actor): Promise<Segment> {
    await this.validate(input);
    const doc: SegmentDocument = {
      _id: await this.deps.nextId(),
      name: input.name,
      description: input.description ?? null,
      project: input.project ?? null,
      constraints: input.constraints,
      createdBy: actor.name,
      createdAt: this.deps.clock(),
      version: 1,
    };
    await this.writing(input.name, () =>
      this.deps.unitOfWork.run(async (tx) => {
        if (await this.deps.segments.findByName(doc.name, tx.session)) throw nameTaken(doc.name);
        await this.deps.segments.insert(doc, tx.session);
        await tx.record({ type: "segment-created", actor, project: doc.project, data: toSegment(doc) });
      }),
    );
    return { ...toSegment(doc), usedInFeatures: 0, usedInProjects: 0 };
  }

  /** Absent `project` becomes null (global); an absent `description` is left as it was. */
  async update(id: number, input: SegmentUpsert, actor: Actor): Promise<void> {
    await this.validate(input);
    const project = input.project ?? null;
    if (project !== null) {
      const elsewhere = (await this.usesOf(id)).filter((u) => u.feature.project !== project);
      if (elsewhere.length > 0) {
        throw new ValidationError(
          `Invalid body.project: segment ${id} is used by flags outside project ${project} (${[...new Set(elsewhere.map((u) => u.feature._id))].join(", ")})`,
          [{ path: "body.project", message: "segment is used in other projects" }],
        );
      }
    }
    await this.writing(input.name, () =>
      this.deps.unitOfWork.run(async (tx) => {
        const before = await this.deps.segments.get(id, tx.session);
        if (!before) throw notFound(id);
        const sameName = await this.deps.segments.findByName(input.name, tx.session);
        if (sameName && sameName._id !== id) throw nameTaken(input.name);
        const after: SegmentDocument = {
          ...before,
          name: input.name,
          description: input.description === undefined ? before.description : input.description,
          project,
          constraints: input.constraints,
          version: before.version + 1,
        };
        await this.deps.segments.replace(after, tx.session);
        await tx.record({ type: "segment-updated", actor, project: after.project, data: toSegment(after), preData: toSegment(before) });
      }),
    );
  }

  /** Refused while any strategy (of an archived flag too, which could be revived) uses the segment. */
  async delete(id: number, actor: Actor): Promise<void> {
    const uses = await this.usesOf(id);
    if (uses.length > 0) {
      const features = [...new Set(uses.map((u) => u.feature._id))];
      throw new NameExistsError(
        `Segment ${id} is in use by ${uses.length} strategies of ${features.join(", ")}; remove it from them first`,
      );
    }
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.segments.get(id, tx.session);
      if (!before) throw notFound(id);
      await this.deps.segments.delete(id, tx.session);
      await tx.record({ type: "segment-deleted", actor, project: before.project, preData: toSegment(before) });
    });
  }

  private async proposedUsesOf(id: number): Promise<ProposedStrategy[]> {
    return (await this.deps.proposedStrategies()).filter((p) => p.segments.includes(id));
  }

  private async usesOf(id: number): Promise<StrategyUse[]> {
    const features = await this.deps.features.listAll();
    return [...strategyUses(features)].filter((u) => u.strategy.segments.includes(id));
  }

  private async validate(input: SegmentUpsert): Promise<void> {
    if (input.project && !(await this.deps.projects.exists(input.project))) {
      throw new ValidationError(`Invalid body.project: project ${input.project} does not exist`, [
        { path: "body.project", message: "unknown project" },
      ]);
    }
    const values = countConstraintValues(input.constraints);
    if (values > this.deps.limits.segmentValues) {
      throw new ValidationError(
        `Invalid body.constraints: a segment may hold at most ${this.deps.limits.segmentValues} constraint values, got ${values}`,
        [{ path: "body.constraints", message: `at most ${this.deps.limits.segmentValues} values` }],
      );
    }
    await this.deps.validateConstraints(input.constraints, "body.constraints");
  }

  /** A concurrent create with the same name loses at the unique index. */
  private async writing(name: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw nameTaken(name);
      throw err;
    }
  }
}
