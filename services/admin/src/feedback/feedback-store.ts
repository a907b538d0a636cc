import type { Collection, StoreEngine } from "@vexil/store";

export interface FeedbackDocument {
  _id: number;
  category: string;
  userType: string | null;
  difficultyScore: number | null;
  positive: string | null;
  areasForImprovement: string | null;
  createdAt: Date;
  /** Who sent it (user id, or Unleash's -42 for an API token). */
  createdByUserId: number;
}

export interface FeedbackStore {
  nextId(): Promise<number>;
  insert(doc: FeedbackDocument): Promise<void>;
}

export function createFeedbackStore(engine: StoreEngine): FeedbackStore {
  const feedback: Collection<FeedbackDocument> = engine.collection("feedback");
  return {
    nextId: () => engine.nextSequence("feedback"),
    async insert(doc) {
      await feedback.insertOne(doc);
    },
  };
}
