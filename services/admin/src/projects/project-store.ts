import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export type ProjectMode = "open" | "protected" | "private";

export interface FeatureNamingDocument {
  pattern: string | null;
  example: string | null;
  description: string | null;
}

export interface ProjectDocument {
  /** The project id, as used in paths. */
  _id: string;
  name: string;
  description: string | null;
  mode: ProjectMode;
  defaultStickiness: string;
  featureLimit: number | null;
  featureNaming: FeatureNamingDocument | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/** An environment enabled for a project, with the strategy new flags get there. */
export interface ProjectEnvironmentDocument {
  /** `<project>:<environment>` */
  _id: string;
  project: string;
  environment: string;
  defaultStrategy: Record<string, unknown> | null;
}

export const projectEnvironmentId = (project: string, environment: string) => `${project}:${environment}`;

export interface ProjectStore {
  list(): Promise<ProjectDocument[]>;
  /** Ids of the projects in this collaboration mode. */
  idsInMode(mode: ProjectMode): Promise<string[]>;
  get(id: string, session?: StoreSession): Promise<ProjectDocument | null>;
  insert(doc: ProjectDocument, session?: StoreSession): Promise<void>;
  update(id: string, fields: Partial<Omit<ProjectDocument, "_id">>, session?: StoreSession): Promise<boolean>;
  delete(id: string, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
  environments(project: string, session?: StoreSession): Promise<ProjectEnvironmentDocument[]>;
  addEnvironment(doc: ProjectEnvironmentDocument, session?: StoreSession): Promise<void>;
  updateEnvironment(
    project: string,
    environment: string,
    fields: Partial<Omit<ProjectEnvironmentDocument, "_id" | "project" | "environment">>,
    session?: StoreSession,
  ): Promise<boolean>;
  removeEnvironment(project: string, environment: string, session?: StoreSession): Promise<boolean>;
  /** Ids of the projects that have the environment enabled. */
  projectsWith(environment: string, session?: StoreSession): Promise<string[]>;
}

export async function createProjectStore(engine: StoreEngine): Promise<ProjectStore> {
  const projects: Collection<ProjectDocument> = engine.collection("projects");
  const projectEnvironments: Collection<ProjectEnvironmentDocument> = engine.collection("project_environments");
  await projectEnvironments.createIndex({ project: 1, environment: 1 }, { unique: true });
  return {
    list: () => projects.find({}, { sort: { createdAt: 1, _id: 1 } }),
    get: (id, session) => projects.findOne({ _id: id }, { session }),
    async idsInMode(mode) {
      return (await projects.find({ mode }, { projection: { _id: 1 } })).map((p) => p._id);
    },
    async insert(doc, session) {
      await projects.insertOne(doc, { session });
    },
    async update(id, fields, session) {
      return (await projects.updateOne({ _id: id }, { $set: fields }, { session })).matchedCount === 1;
    },
    async delete(id, session) {
      await projectEnvironments.deleteMany({ project: id }, { session });
      return (await projects.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
    count: () => projects.countDocuments({}),
    environments: (project, session) => projectEnvironments.find({ project }, { sort: { environment: 1 }, session }),
    async addEnvironment(doc, session) {
      await projectEnvironments.insertOne(doc, { session });
    },
    async updateEnvironment(project, environment, fields, session) {
      const result = await projectEnvironments.updateOne({ project, environment }, { $set: fields }, { session });
      return result.matchedCount === 1;
    },
    async removeEnvironment(project, environment, session) {
      return (await projectEnvironments.deleteOne({ project, environment }, { session })).deletedCount === 1;
    },
    async projectsWith(environment, session) {
      return (await projectEnvironments.find({ environment }, { sort: { project: 1 }, session })).map((e) => e.project);
    },
  };
}
