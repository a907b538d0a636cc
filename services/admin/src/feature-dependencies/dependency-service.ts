import type { AddDependencyBody, ValidateArchiveResponse } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureDocument } from "../features/feature-model.js";
import type { DependencyFlags } from "./dependency-flags.js";
import { archiveImpact, dependencyProblem, type DependencyNode } from "./dependency-rules.js";

const toNode = (doc: FeatureDocument): DependencyNode => ({
  name: doc._id,
  project: doc.project,
  archived: doc.archived,
  dependencies: doc.dependencies,
});

export class DependencyService {
  constructor(
    private readonly deps: {
      features: DependencyFlags;
      projects: { get(project: string): Promise<unknown> };
      unitOfWork: UnitOfWork;
    },
  ) {}

  /** Names of the flags that depend on `name`. */
  childrenOf(name: string): Promise<string[]> {
    return this.deps.features.children(name);
  }

  /** Why the flag cannot depend on `parentName`, or undefined (change requests ask when one is proposed). */
  async problem(project: string, childName: string, parentName: string): Promise<string | undefined> {
    const child = await this.deps.features.getInProject(project, childName);
    const parent = await this.deps.features.find(parentName);
    return dependencyProblem(toNode(child), parent && toNode(parent), (await this.childrenOf(childName)).length > 0) ?? undefined;
  }

  /** Sets the flag's parent, replacing the one it had (Unleash allows one). */
  async add(project: string, childName: string, body: AddDependencyBody, actor: Actor): Promise<void> {
    const problem = await this.problem(project, childName, body.feature);
    if (problem) throw new ValidationError(`Invalid body.feature: ${problem}`, [{ path: "body.feature", message: problem }]);
    // Variants narrow an enabled parent only; with enabled false they mean nothing and are dropped.
    const dependency = { feature: body.feature, enabled: body.enabled, variants: body.enabled ? body.variants : [] };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.features.change(tx, actor, childName, (doc) => ({ ...doc, dependencies: [dependency] }));
      await tx.record({ type: "feature-dependency-added", actor, project, featureName: childName, data: dependency });
    });
  }

  async remove(project: string, childName: string, parentName: string, actor: Actor): Promise<void> {
    const child = await this.deps.features.getInProject(project, childName);
    if (!child.dependencies.some((d) => d.feature === parentName)) {
      throw new NotFoundError(`No dependency on "${parentName}" for feature "${childName}" in project "${project}"`);
    }
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.features.change(tx, actor, childName, (doc) => ({
        ...doc,
        dependencies: doc.dependencies.filter((d) => d.feature !== parentName),
      }));
      await tx.record({ type: "feature-dependency-removed", actor, project, featureName: childName, data: { feature: parentName } });
    });
  }

  /** Removes every parent of the flag; nothing to remove is not an error. */
  async removeAll(project: string, childName: string, actor: Actor): Promise<void> {
    const child = await this.deps.features.getInProject(project, childName);
    if (child.dependencies.length === 0) return;
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.features.change(tx, actor, childName, (doc) => ({ ...doc, dependencies: [] }));
      await tx.record({ type: "feature-dependencies-removed", actor, project, featureName: childName });
    });
  }

  async projectUsesDependencies(project: string): Promise<boolean> {
    await this.deps.projects.get(project);
    return (await this.deps.features.list({ project, archived: false })).some((f) => f.dependencies.length > 0);
  }

  /** POST /api/admin/projects/:projectId/archive/validate. Names of other projects' flags or unknown names simply have no dependencies here. */
  async validateArchive(project: string, names: string[]): Promise<ValidateArchiveResponse> {
    await this.deps.projects.get(project);
    const features = await this.deps.features.list({ project, archived: false });
    return archiveImpact(names, features.map(toNode));
  }

  /**
   * Inside the archive's transaction (a FeatureService removal step), the archived flags'
   * dependencies go, both ways (what archive validation warns about): the archived flags lose their
   * parents and their children lose them as parents.
   */
  async removeDependenciesOfArchived(tx: Transaction, archived: string[], actor: Actor): Promise<void> {
    const gone = new Set(archived);
    const affected = new Set<string>();
    for (const name of archived) {
      const doc = await this.deps.features.find(name, tx.session);
      if (doc && doc.dependencies.length > 0) affected.add(name);
      for (const child of await this.deps.features.children(name, tx.session)) affected.add(child);
    }
    for (const name of affected) {
      const { before, after } = await this.deps.features.change(tx, actor, name, (doc) => ({
        ...doc,
        dependencies: gone.has(doc._id) ? [] : doc.dependencies.filter((d) => !gone.has(d.feature)),
      }));
      if (before.dependencies.length !== after.dependencies.length) {
        await tx.record({ type: "feature-dependencies-removed", actor, project: after.project, featureName: name });
      }
    }
  }
}
