// Chat payloads as conversations: messages with role labels, tool calls and their results,
// images, and the request's tools and response_format. Anything unexpected falls back to JSON.
import { Anchor, Badge, Box, Group, Paper, Stack, Table, Text } from "@mantine/core";
import { Hint } from "../../components/hint";
import type { ReactNode } from "react";
import { MessageText } from "./highlight";
import { CutShort, DATA_IMAGE, isCutShort, JsonBlock, RemoteImage, ShownImage } from "./payload-parts";

export { pretty } from "./payload-parts";

type Json = unknown;
type Obj = Record<string, Json>;
const isObj = (v: Json): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: Json): string | null => (typeof v === "string" ? v : null);

export const ROLE_COLORS: Record<string, string> = { system: "gray", developer: "grape", user: "blue", assistant: "teal", tool: "orange", function: "orange" };

const toolCallAnchor = (scope: string, id: string) => `${scope}-toolcall-${id.replace(/[^A-Za-z0-9_-]/g, "_")}`;

function ContentPart({ part }: { part: Json }) {
  if (typeof part === "string") return <MessageText>{part}</MessageText>;
  if (!isObj(part)) return <JsonBlock value={part} />;
  const type = str(part.type);
  if (type === "text" || type === "input_text" || type === "output_text") return <MessageText>{str(part.text) ?? ""}</MessageText>;
  if (type === "image_url" || type === "image") {
    const url = isObj(part.image_url) ? str(part.image_url.url) : (str(part.image_url) ?? str(part.url));
    // data: images are in the payload itself: showing them fetches nothing.
    if (url && DATA_IMAGE.test(url)) return <ShownImage src={url} />;
    if (url && /^https?:\/\//i.test(url)) return <RemoteImage url={url} />;
    return (
      <Text size="sm" c="dimmed">
        [image: {url ? `${url.slice(0, 80)}${url.length > 80 ? "…" : ""}` : "no URL"}]
      </Text>
    );
  }
  if (type === "refusal") return <MessageText>{`Refusal: ${str(part.refusal) ?? ""}`}</MessageText>;
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">
        {type ?? "part"}
      </Text>
      <JsonBlock value={part} />
    </Stack>
  );
}

function MessageContent({ content }: { content: Json }) {
  if (content == null) return null;
  if (typeof content === "string") return content ? <MessageText>{content}</MessageText> : null;
  if (Array.isArray(content))
    return (
      <Stack gap={6}>
        {content.map((p, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts have no identity of their own
          <ContentPart key={i} part={p} />
        ))}
      </Stack>
    );
  return <JsonBlock value={content} />;
}

function ToolCall({ call, scope }: { call: Json; scope: string }) {
  if (!isObj(call)) return <JsonBlock value={call} />;
  const fn = isObj(call.function) ? call.function : call;
  const id = str(call.id);
  return (
    <Paper withBorder p="xs" radius="sm" id={id ? toolCallAnchor(scope, id) : undefined} data-testid="tool-call">
      <Group gap="xs" mb={4}>
        <Badge size="sm" variant="outline" color="orange" tt="none">
          tool call
        </Badge>
        <Text ff="monospace" fw={600} size="sm">
          {str(fn.name) ?? "(unnamed)"}
        </Text>
        {id ? (
          <Text size="xs" c="dimmed" ff="monospace">
            {id}
          </Text>
        ) : null}
      </Group>
      <JsonBlock value={fn.arguments ?? fn.input ?? {}} label="Arguments" />
    </Paper>
  );
}

export type ToolNames = Map<string, string>;

/** Tool call ids to function names, across a list of messages. */
export function toolNamesOf(messages: Json[]): ToolNames {
  const names: ToolNames = new Map();
  for (const m of messages) {
    if (!isObj(m) || !Array.isArray(m.tool_calls)) continue;
    for (const c of m.tool_calls) if (isObj(c) && str(c.id)) names.set(str(c.id)!, isObj(c.function) ? (str(c.function.name) ?? "") : "");
  }
  return names;
}

export function Message({ message, scope, toolNames }: { message: Json; scope: string; toolNames?: ToolNames }) {
  if (!isObj(message)) return <JsonBlock value={message} />;
  const role = str(message.role) ?? "message";
  const callId = str(message.tool_call_id);
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const extra: ReactNode[] = [];
  if (message.function_call) extra.push(<ToolCall key="fc" call={{ function: message.function_call }} scope={scope} />);
  if (str(message.refusal)) extra.push(<MessageText key="refusal">{`Refusal: ${str(message.refusal)}`}</MessageText>);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="message" data-role={role}>
      <Group gap="xs" mb={6}>
        <Badge color={ROLE_COLORS[role] ?? "gray"} variant="light" c="bright" tt="none" data-testid="role">
          {role}
        </Badge>
        <Hint>{str(message.name)}</Hint>
        {callId ? (
          <Text size="xs" c="dimmed">
            result of{" "}
            <Anchor
              component="button"
              type="button"
              size="xs"
              ff="monospace"
              onClick={() => document.getElementById(toolCallAnchor(scope, callId))?.scrollIntoView({ behavior: "smooth", block: "center" })}
            >
              {toolNames?.get(callId) ? `${toolNames.get(callId)} (${callId})` : callId}
            </Anchor>
          </Text>
        ) : null}
      </Group>
      <Stack gap={6}>
        <MessageContent content={message.content} />
        {calls.map((c, i) => (
          <ToolCall key={isObj(c) && str(c.id) ? str(c.id)! : i} call={c} scope={scope} />
        ))}
        {extra}
      </Stack>
    </Paper>
  );
}

const SHOWN_ELSEWHERE = new Set(["messages", "tools", "functions", "response_format", "metadata"]);

function Parameters({ req }: { req: Obj }) {
  const rows = Object.entries(req).filter(([k]) => !SHOWN_ELSEWHERE.has(k));
  if (!rows.length) return null;
  return (
    <Table withRowBorders={false} verticalSpacing={2} fz="xs" aria-label="Request parameters">
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Td w={160} c="dimmed">
              {k}
            </Table.Td>
            <Table.Td ff="monospace" style={{ wordBreak: "break-all" }}>
              {typeof v === "string" ? v : JSON.stringify(v)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Tools({ tools }: { tools: Json[] }) {
  return (
    <Stack gap={6}>
      {tools.map((t, i) => {
        const fn = isObj(t) && isObj(t.function) ? t.function : isObj(t) ? t : {};
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: tools are shown in order, never reordered
          <Paper key={i} withBorder p="xs" radius="sm">
            <Group gap="xs">
              <Text ff="monospace" fw={600} size="sm">
                {str(fn.name) ?? "(unnamed)"}
              </Text>
              <Hint>{str(fn.description)}</Hint>
            </Group>
            {(fn.parameters ?? fn.input_schema) ? <JsonBlock value={fn.parameters ?? fn.input_schema} label="Parameters schema" /> : null}
          </Paper>
        );
      })}
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box>
      <Text size="xs" fw={700} tt="uppercase" c="dimmed" mb={4}>
        {title}
      </Text>
      {children}
    </Box>
  );
}

/** A chat-completion request: its messages, tools, response_format and other parameters. */
export function RequestView({ payload, scope = "req" }: { payload: Json; scope?: string }) {
  if (payload == null) return <Text c="dimmed">No request was logged.</Text>;
  if (isCutShort(payload)) return <CutShort payload={payload} what="request" />;
  if (!isObj(payload) || !Array.isArray(payload.messages)) return <JsonBlock value={payload} label="Request" />;
  const messages = payload.messages;
  const names = toolNamesOf(messages);
  const tools = Array.isArray(payload.tools) ? payload.tools : Array.isArray(payload.functions) ? payload.functions : null;
  return (
    <Stack gap="sm" data-testid="request-view">
      <Parameters req={payload} />
      <Stack gap={6}>
        {messages.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a conversation's order is its identity
          <Message key={i} message={m} scope={scope} toolNames={names} />
        ))}
      </Stack>
      {tools?.length ? (
        <Section title={`Tools (${tools.length})`}>
          <Tools tools={tools} />
        </Section>
      ) : null}
      {payload.response_format ? (
        <Section title="Response format">
          <JsonBlock value={payload.response_format} label="Response format" />
        </Section>
      ) : null}
    </Stack>
  );
}

/** A chat-completion response: each choice's message and finish reason; an error object as such. */
export function ResponseView({ payload, scope = "resp" }: { payload: Json; scope?: string }) {
  if (payload == null) return <Text c="dimmed">No response was logged.</Text>;
  if (isCutShort(payload)) return <CutShort payload={payload} what="response" />;
  if (isObj(payload) && isObj(payload.error)) {
    return (
      <Stack gap={4}>
        <Text c="red" fw={600}>
          {str(payload.error.message) ?? "Error"}
        </Text>
        <JsonBlock value={payload} label="Error response" />
      </Stack>
    );
  }
  if (!isObj(payload) || !Array.isArray(payload.choices)) return <JsonBlock value={payload} label="Response" />;
  const choices = payload.choices;
  return (
    <Stack gap="sm" data-testid="response-view">
      {choices.map((c, i) => {
        const choice = isObj(c) ? c : {};
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: choices are in index order
          <Stack key={i} gap={4}>
            {choices.length > 1 || choice.finish_reason ? (
              <Text size="xs" c="dimmed">
                {choices.length > 1 ? `Choice ${typeof choice.index === "number" ? choice.index : i}` : ""}
                {choice.finish_reason ? `${choices.length > 1 ? " · " : ""}finish reason: ${String(choice.finish_reason)}` : ""}
              </Text>
            ) : null}
            <Message message={choice.message ?? choice} scope={`${scope}-${i}`} />
          </Stack>
        );
      })}
    </Stack>
  );
}
