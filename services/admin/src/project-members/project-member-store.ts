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

/** A group given project roles: every member of the group holds them in the project. */
export interface ProjectGroup {
  project: string;
  groupId: number;
  roles: number[];
  addedAt: Date;
}

interface GroupDocument extends ProjectGroup {
  /** `<project>:<groupId>` */
  _id: string;
}

/** The project roles a user or group holds, one entry per project. */
export interface HeldProjectRoles {
  project: string;
  roles: number[];
}

export interface ProjectMemberStore {
  list(project: string): Promise<ProjectMember[]>;
  count(project: string): Promise<number>;
  isMember(project: string, userId: number): Promise<boolean>;
  /** Adds the roles to the user's in the project, making them a member if they were not. */
  addRoles(project: string, userId: number, roles: number[], addedAt: Date, session: StoreSession): Promise<void>;
  /** False when the user was no member. */
  remove(project: string, userId: number, session: StoreSession): Promise<boolean>;
  /** The projects the user is a member of in person, with the roles. */
  heldByUser(userId: number): Promise<HeldProjectRoles[]>;
  listGroups(project: string): Promise<ProjectGroup[]>;
  addGroupRoles(project: string, groupId: number, roles: number[], addedAt: Date, session: StoreSession): Promise<void>;
  /** False when the group had no role in the project. */
  removeGroup(project: string, groupId: number, session: StoreSession): Promise<boolean>;
  /** When the group is deleted. */
  removeGroupEverywhere(groupId: number, session: StoreSession): Promise<void>;
  heldByGroups(groupIds: number[]): Promise<HeldProjectRoles[]>;
}

const idOf = (project: string, userId: number) => `${project}:${userId}`;

export async function createProjectMemberStore(engine: StoreEngine): Promise<ProjectMemberStore> {
  const members = engine.collection<MemberDocument>("project_members");
  await members.createIndex({ project: 1 });
  await members.createIndex({ userId: 1 });
  const groups = engine.collection<GroupDocument>("project_groups");
  await groups.createIndex({ project: 1 });
  await groups.createIndex({ groupId: 1 });
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
    async heldByUser(userId) {
      return (await members.find({ userId })).map(({ project, roles }) => ({ project, roles }));
    },
    async listGroups(project) {
      const docs = await groups.find({ project }, { sort: { groupId: 1 } });
      return docs.map(({ project, groupId, roles, addedAt }) => ({ project, groupId, roles, addedAt }));
    },
    async addGroupRoles(project, groupId, roles, addedAt, session) {
      await groups.updateOne(
        { _id: idOf(project, groupId) },
        { $set: { project, groupId }, $addToSet: { roles: { $each: roles } }, $setOnInsert: { addedAt } },
        { upsert: true, session },
      );
    },
    async removeGroup(project, groupId, session) {
      return (await groups.deleteOne({ _id: idOf(project, groupId) }, { session })).deletedCount > 0;
    },
    async removeGroupEverywhere(groupId, session) {
      await groups.deleteMany({ groupId }, { session });
    },
    async heldByGroups(groupIds) {
      if (groupIds.length === 0) return [];
      return (await groups.find({ groupId: { $in: groupIds } })).map(({ project, roles }) => ({ project, roles }));
    },
  };
}
