import type { StoreEngine, StoreSession } from "@vexil/store";

export interface ProjectMember {
  project: string;
  userId: number;
  roles: number[];
  addedAt: Date;
}

interface MemberDocument extends ProjectMember {
  /** `<project>:<userId>` */
  _id: string;
}

export interface ProjectMemberStore {
  list(project: string): Promise<ProjectMember[]>;
  count(project: string): Promise<number>;
  isMember(project: string, userId: number): Promise<boolean>;
  /** Adds the roles to the user's in the project, making them a member if they were not. */
  addRoles(project: string, userId: number, roles: number[], addedAt: Date, session: StoreSession): Promise<void>;
  /** False when the user was no member. */
  remove(project: string, userId: number, session: StoreSession): Promise<boolean>;
}

const idOf = (project: string, userId: number) => `${project}:${userId}`;

export async function createProjectMemberStore(engine: StoreEngine): Promise<ProjectMemberStore> {
  const members = engine.collection<MemberDocument>("project_members");
  await members.createIndex({ project: 1 });
  return {
    async list(project) {
      const docs = await members.find({ project }, { sort: { userId: 1 } });
      return docs.map(({ project, userId, roles, addedAt }) => ({ project, userId, roles, addedAt }));
    },
    count: (project) => members.countDocuments({ project }),
    isMember: async (project, userId) => (await members.countDocuments({ _id: idOf(project, userId) })) > 0,
    async addRoles(project, userId, roles, addedAt, session) {
      await members.updateOne(
        { _id: idOf(project, userId) },
        { $set: { project, userId }, $addToSet: { roles: { $each: roles } }, $setOnInsert: { addedAt } },
        { upsert: true, session },
      );
    },
    async remove(project, userId, session) {
      return (await members.deleteOne({ _id: idOf(project, userId) }, { session })).deletedCount > 0;
    },
  };
}
