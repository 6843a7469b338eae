// A call made on /messages or /responses, in its own protocol's terms: the answer's Anthropic
// content blocks (thinking, text, tool use) or Responses output items (reasoning, messages,
// function and custom tool calls), each marked with its type; cache markers and tool results in
// the request are counted. The chat form is in the other tabs.
import { Badge, Group, Paper, Stack, Text } from "@mantine/core";
import { JsonBlock } from "./payload-parts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : "");

function Piece({ type, children, note }: { type: string; children: React.ReactNode; note?: string }) {
  return (
    <Paper withBorder p="xs" radius="sm" data-testid="protocol-piece" data-type={type}>
      <Group gap={6} mb={4}>
        <Badge size="xs" variant="light" tt="none">
          {type}
        </Badge>
        {note ? (
          <Text size="xs" c="dimmed">
            {note}
          </Text>
        ) : null}
      </Group>
      {children}
    </Paper>
  );
}

const textOf = (parts: unknown) =>
  Array.isArray(parts)
    ? parts
        .filter(isObj)
        .map((p) => str(p.text) || str(p.refusal))
        .join("")
    : str(parts);

function AnthropicBlock({ block }: { block: Obj }) {
  const type = str(block.type) || "block";
  if (type === "text")
    return (
      <Piece type="text">
        {
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {str(block.text)}
          </Text>
        }
      </Piece>
    );
  if (type === "thinking")
    return (
      <Piece type="thinking" note={str(block.signature) ? "signature kept" : undefined}>
        <Text size="sm" fs="italic" c="dimmed" style={{ whiteSpace: "pre-wrap" }}>
          {str(block.thinking)}
        </Text>
      </Piece>
    );
  if (type === "redacted_thinking") return <Piece type="redacted_thinking">{<Text size="sm">(encrypted)</Text>}</Piece>;
  if (type === "tool_use" || type === "server_tool_use")
    return (
      <Piece type={type} note={str(block.name)}>
        <JsonBlock value={block.input ?? {}} label={`Input of ${str(block.name)}`} />
      </Piece>
    );
  return (
    <Piece type={type}>
      <JsonBlock value={block} />
    </Piece>
  );
}

function ResponsesItem({ item }: { item: Obj }) {
  const type = str(item.type) || "item";
  if (type === "message")
    return (
      <Piece type="message">
        {
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {textOf(item.content)}
          </Text>
        }
      </Piece>
    );
  if (type === "reasoning") {
    const summary = Array.isArray(item.summary)
      ? item.summary
          .filter(isObj)
          .map((s) => str(s.text))
          .join("\n")
      : "";
    return (
      <Piece type="reasoning" note={str(item.encrypted_content) ? "encrypted content kept" : undefined}>
        <Text size="sm" fs="italic" c="dimmed" style={{ whiteSpace: "pre-wrap" }}>
          {summary || "(no summary)"}
        </Text>
      </Piece>
    );
  }
  if (type === "function_call")
    return (
      <Piece type="function_call" note={`${str(item.name)} · ${str(item.call_id)}`}>
        <JsonBlock value={str(item.arguments) || "{}"} label={`Arguments of ${str(item.name)}`} />
      </Piece>
    );
  if (type === "custom_tool_call")
    return (
      <Piece type="custom_tool_call" note={`${str(item.name)} · ${str(item.call_id)}`}>
        <Text size="sm" ff="monospace" style={{ whiteSpace: "pre-wrap" }}>
          {str(item.input)}
        </Text>
      </Piece>
    );
  return (
    <Piece type={type}>
      <JsonBlock value={item} />
    </Piece>
  );
}

/** What the request held of note: cache markers and tool results (Messages), items by type (Responses). */
function requestNotes(api: string, request: unknown): string[] {
  if (!isObj(request)) return [];
  const counts = new Map<string, number>();
  const add = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  if (api === "messages") {
    const blocks = [
      ...(Array.isArray(request.system) ? request.system : []),
      ...(Array.isArray(request.messages) ? request.messages : []).flatMap((m) => (isObj(m) && Array.isArray(m.content) ? m.content : [])),
      ...(Array.isArray(request.tools) ? request.tools : []),
    ].filter(isObj);
    for (const b of blocks) {
      if (b.cache_control) add("cache_control marker");
      if (b.type === "tool_result") add("tool_result");
      if (b.type === "thinking") add("thinking (returned)");
    }
  } else if (Array.isArray(request.input)) {
    for (const i of request.input.filter(isObj)) add(`${str(i.type) || "message"} item`);
  }
  return [...counts].map(([k, n]) => `${n} × ${k}`);
}

export function ProtocolView({ api, request, response }: { api: string; request: unknown; response: unknown }) {
  if (api !== "messages" && api !== "responses") return null;
  const pieces = isObj(response) ? (api === "messages" ? response.content : response.output) : null;
  const notes = requestNotes(api, request);
  return (
    <Stack gap={6} mb="sm" data-testid="protocol-view">
      {notes.length ? (
        <Text size="xs" c="dimmed">
          Request: {notes.join(", ")}
        </Text>
      ) : null}
      {Array.isArray(pieces) && pieces.length ? (
        pieces.filter(isObj).map((p, i) => (api === "messages" ? <AnthropicBlock key={String(i)} block={p} /> : <ResponsesItem key={String(i)} item={p} />))
      ) : (
        <Text size="sm" c="dimmed">
          No answer was received.
        </Text>
      )}
    </Stack>
  );
}
