import { z } from "zod";
import { ChatMessage, Metadata, ResponseFormat, Tool, ToolChoice } from "./schemas";

/** Which part of a dataset an entry is in: trained on, or held out to test. */
export const Split = z.enum(["TRAIN", "TEST"]);
export type Split = z.infer<typeof Split>;

/** One training example: a conversation whose last message is the assistant output to learn. */
export const ChatEntry = z
  .strictObject({
    messages: z.array(ChatMessage).min(1, "messages must hold at least one message"),
    tools: z.array(Tool).nullable().optional(),
    tool_choice: ToolChoice.nullable().optional(),
    response_format: ResponseFormat.nullable().optional(),
    metadata: Metadata.optional(),
    split: Split.optional(),
  })
  .superRefine((entry, c) => {
    const last = entry.messages.at(-1);
    if (last && last.role !== "assistant") {
      c.addIssue({
        code: "custom",
        path: ["messages", entry.messages.length - 1],
        message: "the last message must have role `assistant` (the output the model should learn)",
      });
    }
  });
export type ChatEntry = z.output<typeof ChatEntry>;
