import type { FeatureDependencyDocument } from "../features/feature-model.js";

/** The part of a flag the dependency rules look at. */
export interface DependencyNode {
  name: string;
  project: string;
  archived: boolean;
  dependencies: readonly FeatureDependencyDocument[];
}

/**
 * Why `child` may not depend on `parent`, or null when it may. Unleash's rules: same project, a
 * live parent, no self-dependency, and one level only (a parent has no parent of its own and a child
 * has no children), which also rules out every cycle.
 */
export function dependencyProblem(child: DependencyNode, parent: DependencyNode | null, childHasChildren: boolean): string | null {
  if (!parent || parent.archived) return `There is no live feature flag ${parent?.name ?? "with that name"} to depend on`;
  if (parent.name === child.name) return "A feature flag cannot depend on itself";
  if (parent.project !== child.project)
    return `The parent ${parent.name} is in project ${parent.project}, not ${child.project}; dependencies stay within a project`;
  if (parent.dependencies.length > 0)
    return `${parent.name} depends on ${parent.dependencies[0]?.feature}; a parent cannot itself have a parent`;
  if (childHasChildren) return `Other flags depend on ${child.name}; a flag with children cannot get a parent`;
  return null;
}

/**
 * POST /api/admin/projects/:projectId/archive/validate: archiving `batch` orphans the children of its flags that are not archived with
 * them, and deletes every dependency that touches a flag of the batch.
 */
export function archiveImpact(
  batch: readonly string[],
  nodes: readonly DependencyNode[],
): { parentsWithChildFeatures: string[]; hasDeletedDependencies: boolean } {
  const inBatch = new Set(batch);
  const parentsWithChildFeatures = new Set<string>();
  let hasDeletedDependencies = false;
  for (const node of nodes) {
    for (const { feature: parent } of node.dependencies) {
      if (inBatch.has(parent) || inBatch.has(node.name)) hasDeletedDependencies = true;
      if (inBatch.has(parent) && !inBatch.has(node.name)) parentsWithChildFeatures.add(parent);
    }
  }
  return { parentsWithChildFeatures: batch.filter((name) => parentsWithChildFeatures.has(name)), hasDeletedDependencies };
}
