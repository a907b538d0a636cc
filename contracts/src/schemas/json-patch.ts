import { z } from "zod";

export const jsonPatchOps = ["add", "remove", "replace", "copy", "move"] as const;

/** One RFC 6902 operation. `from` is required by move/copy and `value` by add/replace. */
export const jsonPatchItemSchema = z
  .object({
    op: z.enum(jsonPatchOps),
    path: z.string(),
    from: z.string().optional(),
    value: z.unknown().optional(),
  })
  .superRefine((item, ctx) => {
    if ((item.op === "move" || item.op === "copy") && item.from === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["from"], message: `"from" is required for op "${item.op}"` });
    }
    if ((item.op === "add" || item.op === "replace") && item.value === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["value"], message: `"value" is required for op "${item.op}"` });
    }
  });
export type JsonPatchItem = z.infer<typeof jsonPatchItemSchema>;

export const jsonPatchSchema = z.array(jsonPatchItemSchema);
export type JsonPatch = z.infer<typeof jsonPatchSchema>;
