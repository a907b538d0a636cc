import { describe, expect, it } from "vitest";
import { archiveImpact, dependencyProblem, type DependencyNode } from "./dependency-rules.js";

const node = (name: string, parents: string[] = [], project = "p", archived = false): DependencyNode => ({
  name,
  project,
  archived,
  dependencies: parents.map((feature) => ({ feature, enabled: true, variants: [] })),
});

describe("dependencyProblem", () => {
  it("accepts a live parent without parents in the same project", () => {
    expect(dependencyProblem(node("child"), node("parent"), false)).toBeNull();
  });

  it.each([
    ["an unknown parent", node("child"), null, false, /no live feature flag/],
    ["an archived parent", node("child"), node("parent", [], "p", true), false, /no live feature flag parent/],
    ["itself", node("child"), node("child"), false, /cannot depend on itself/],
    ["a parent in another project", node("child"), node("parent", [], "q"), false, /within a project/],
    ["a parent that has a parent", node("child"), node("parent", ["grandparent"]), false, /cannot itself have a parent/],
    ["a child that has children", node("child"), node("parent"), true, /flag with children/],
  ])("refuses %s", (_case, child, parent, childHasChildren, message) => {
    expect(dependencyProblem(child, parent, childHasChildren)).toMatch(message);
  });
});

describe("cycles", () => {
  it("cannot form: closing a loop either gives the parent a parent or the child a child", () => {
    // b depends on a; now a asks to depend on b.
    const a = node("a");
    const b = node("b", ["a"]);
    expect(dependencyProblem(a, b, true)).toMatch(/cannot itself have a parent/);
    // c depends on b which depends on a would need b (a child) to be a parent as well.
    expect(dependencyProblem(node("c"), b, false)).toMatch(/cannot itself have a parent/);
    expect(dependencyProblem(b, node("c"), true)).toMatch(/flag with children/);
  });
});

describe("archiveImpact", () => {
  const nodes = [node("parent"), node("child", ["parent"]), node("other-child", ["parent"]), node("loner")];
  it("names parents whose children stay behind", () => {
    expect(archiveImpact(["parent"], nodes)).toEqual({ parentsWithChildFeatures: ["parent"], hasDeletedDependencies: true });
    expect(archiveImpact(["parent", "child"], nodes)).toEqual({ parentsWithChildFeatures: ["parent"], hasDeletedDependencies: true });
  });
  it("is clean when every child goes along", () => {
    expect(archiveImpact(["parent", "child", "other-child"], nodes)).toEqual({
      parentsWithChildFeatures: [],
      hasDeletedDependencies: true,
    });
  });
  it("reports a child's own dependency as deleted", () => {
    expect(archiveImpact(["child"], nodes)).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: true });
  });
  it("reports nothing for flags without dependencies or unknown names", () => {
    expect(archiveImpact(["loner", "nope"], nodes)).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: false });
  });
});
