import { z } from "zod";
import { dateTimeSchema } from "../common.js";

export const feedbackInputSchema = z.object({
  category: z.string().min(1),
  userType: z.string().nullable().optional(),
  difficultyScore: z.number().nullable().optional(),
  positive: z.string().nullable().optional(),
  areasForImprovement: z.string().nullable().optional(),
});
export type FeedbackInput = z.infer<typeof feedbackInputSchema>;

export const feedbackSchema = z.object({
  id: z.number(),
  createdAt: dateTimeSchema,
  category: z.string(),
  userType: z.string().nullable(),
  difficultyScore: z.number().nullable(),
  positive: z.string().nullable(),
  areasForImprovement: z.string().nullable(),
});
export type Feedback = z.infer<typeof feedbackSchema>;
