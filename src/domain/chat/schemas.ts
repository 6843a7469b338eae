import { z } from "zod";
import { MAX_MODEL_LENGTH } from "../../core/limits";

// The chat format of SPEC.md, shared by dataset entries and the gateway. Every message variant is
// strict: a member the spec does not list is an error, not silently dropped.

/**
 * A model string (`openai:gpt-4o-mini`, `hone:<provider>/<model>`, a fine-tune id). Capped: it is
 * logged, used in cache keys and sent upstream, and no real model name comes near the cap.
 */
export const modelName = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .min(1, `${field} must not be empty`)
    .max(MAX_MODEL_LENGTH, `${field} must be at most ${MAX_MODEL_LENGTH} characters`);

const TextPart = z.strictObject({ type: z.literal("text"), text: z.string() });
const RefusalPart = z.strictObject({ type: z.literal("refusal"), refusal: z.string() });
const ImagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({
    url: z.string(),
    detail: z.enum(["auto", "low", "high"]).optional(),
  }),
});
const AudioPart = z.strictObject({
  type: z.literal("input_audio"),
  input_audio: z.strictObject({ data: z.string(), format: z.enum(["wav", "mp3"]) }),
});

const TextContent = z.union([z.string(), z.array(TextPart)]);

const SystemMessage = z.strictObject({
  role: z.literal("system"),
  content: TextContent.default(""),
  name: z.string().optional(),
});
const DeveloperMessage = z.strictObject({
  role: z.literal("developer"),
  content: TextContent.default(""),
  name: z.string().optional(),
});
/** A file (a PDF, say) as OpenAI takes it: its data as a data: URL, or an id of OpenAI's files. */
const FilePart = z.strictObject({
  type: z.literal("file"),
  file: z.strictObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});
const UserMessage = z.strictObject({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextPart, ImagePart, AudioPart, FilePart]))]).default(""),
  name: z.string().optional(),
});

const ToolCall = z.strictObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});

export const AssistantMessage = z.strictObject({
  role: z.literal("assistant"),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion("type", [TextPart, RefusalPart]))])
    .nullable()
    .default(null),
  audio: z.strictObject({ id: z.string() }).nullable().optional(),
  function_call: z
    .strictObject({ name: z.string().default(""), arguments: z.string().default("") })
    .nullable()
    .optional(),
  tool_calls: z.array(ToolCall).nullable().optional(),
  name: z.string().optional(),
  refusal: z.string().nullable().optional(),
  annotations: z
    .array(
      z.strictObject({
        type: z.literal("url_citation"),
        url_citation: z.strictObject({
          start_index: z.number(),
          end_index: z.number(),
          title: z.string(),
          url: z.string(),
        }),
      }),
    )
    .optional(),
});
const ToolMessage = z.strictObject({
  role: z.literal("tool"),
  content: TextContent.default(""),
  tool_call_id: z.string(),
});
const FunctionMessage = z.strictObject({
  role: z.literal("function"),
  name: z.string(),
  content: z.string().nullable(),
});

export const ChatMessage = z.discriminatedUnion("role", [SystemMessage, DeveloperMessage, UserMessage, AssistantMessage, ToolMessage, FunctionMessage]);
export type ChatMessage = z.infer<typeof ChatMessage>;

export const FunctionDefinition = z.strictObject({
  name: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).optional(),
  description: z.string().optional(),
  strict: z.boolean().nullable().optional(),
});

export const Tool = z.strictObject({ type: z.literal("function"), function: FunctionDefinition });
export type Tool = z.infer<typeof Tool>;

export const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.strictObject({ type: z.literal("function").default("function"), function: z.strictObject({ name: z.string() }) }),
]);
export type ToolChoice = z.infer<typeof ToolChoice>;

export const ResponseFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({
    type: z.literal("json_schema"),
    json_schema: z.strictObject({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof ResponseFormat>;

/** String-to-string tags; the spec allows nothing else as a metadata value. */
export const Metadata = z.record(z.string(), z.string({ error: "metadata values must be strings" }));
