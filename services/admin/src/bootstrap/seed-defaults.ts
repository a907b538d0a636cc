import type { EnvironmentStore } from "../environments/environment-store.js";
import { projectEnvironmentId, type ProjectStore } from "../projects/project-store.js";

/** A fresh installation looks like a fresh Unleash: project `default` in development and production. */
export async function seedDefaults(
  { environments, projects }: { environments: EnvironmentStore; projects: ProjectStore },
  now: Date,
): Promise<void> {
  if ((await environments.count()) === 0) {
    await environments.insert({ _id: "development", type: "development", enabled: true, sortOrder: 2, protected: false, createdAt: now });
    await environments.insert({ _id: "production", type: "production", enabled: true, sortOrder: 3, protected: false, createdAt: now });
  }
  if ((await projects.count()) === 0) {
    await projects.insert({
      _id: "default",
      name: "Default",
      description: "Default project",
      mode: "open",
      defaultStickiness: "default",
      featureLimit: null,
      featureNaming: null,
      createdAt: now,
      updatedAt: null,
    });
    for (const environment of ["development", "production"]) {
      await projects.addEnvironment({
        _id: projectEnvironmentId("default", environment),
        project: "default",
        environment,
        defaultStrategy: null,
      });
    }
  }
}
