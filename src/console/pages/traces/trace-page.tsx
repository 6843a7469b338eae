import { Anchor, Badge, Box, Code, Group, Paper, Stack, Text, UnstyledButton } from "@mantine/core";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { When } from "../../components/when";
import { formatCost, formatMs, plural } from "../../lib/format";
import { type TraceData, type TraceSpan, useTrace } from "./queries";

// One trace as a waterfall: each span a row, indented under its parent, its bar placed on the
// trace's time line. A model call names its log (opened in the log drawer) and shows what went in
// and came out; a tool's execution shows its arguments and result when the application sent them.

type Row = { span: TraceSpan; depth: number };

/** Spans in tree order (a parent, then its children by start); a span whose parent was not sent is a root. */
function treeOrder(spans: TraceSpan[]): Row[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | null, TraceSpan[]>();
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : null;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const out: Row[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const s of children.get(parent) ?? []) {
      out.push({ span: s, depth });
      if (depth < 32) walk(s.spanId, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

const ms = (d: string | null) => (d ? Date.parse(d) : null);

const OPERATION_COLOR: Record<string, string> = { chat: "violet", embeddings: "violet", execute_tool: "teal", invoke_agent: "blue" };

function SpanRow({ row, trace, start, total }: { row: Row; trace: TraceData; start: number; total: number }) {
  const [open, setOpen] = useState(false);
  const s = row.span;
  const begin = ms(s.startedAt);
  const left = begin === null || total <= 0 ? 0 : ((begin - start) / total) * 100;
  const width = s.durationMs === null || total <= 0 ? 0.5 : Math.max(0.5, (s.durationMs / total) * 100);
  const log = s.logId ? trace.logs.find((l) => l.id === s.logId) : undefined;
  const color = s.status === "error" ? "red" : (OPERATION_COLOR[s.operation ?? ""] ?? "gray");
  const attrs = s.attributes as Record<string, unknown>;
  // OpenInference puts a tool's arguments and result in input.value / output.value.
  const oiTool = s.operation === "execute_tool";
  const toolArgs =
    attrs["gen_ai.tool.call.arguments"] ?? attrs["ai.toolCall.args"] ?? attrs["ai.toolCall.input"] ?? (oiTool ? attrs["input.value"] : undefined);
  const toolResult =
    attrs["gen_ai.tool.call.result"] ?? attrs["ai.toolCall.result"] ?? attrs["ai.toolCall.output"] ?? (oiTool ? attrs["output.value"] : undefined);
  return (
    <Box data-span-id={s.spanId} data-operation={s.operation ?? ""} style={{ borderBottom: "1px solid var(--mantine-color-default-border)" }} py={4}>
      <UnstyledButton onClick={() => setOpen((o) => !o)} w="100%" aria-expanded={open}>
        <Group wrap="nowrap" gap="sm">
          <Group gap={6} wrap="nowrap" w="40%" pl={row.depth * 16} style={{ overflow: "hidden" }}>
            <Badge size="xs" variant="light" color={color} tt="none">
              {s.operation ?? s.kind ?? "span"}
            </Badge>
            <Text size="sm" truncate>
              {s.name}
            </Text>
          </Group>
          <Box style={{ flex: 1, position: "relative", height: 14 }}>
            <Box
              style={{ position: "absolute", left: `${Math.min(left, 99.5)}%`, width: `${Math.min(width, 100 - left)}%`, top: 2, bottom: 2, borderRadius: 3 }}
              bg={`${color}.5`}
            />
          </Box>
          <Text size="xs" c="dimmed" w={70} ta="right">
            {formatMs(s.durationMs)}
          </Text>
        </Group>
      </UnstyledButton>
      {log ? (
        <Group gap="xs" pl={row.depth * 16 + 8} mt={2} wrap="nowrap">
          <Anchor size="xs" renderRoot={(props) => <Link {...props} to="/logs/$logId" params={{ logId: log.id }} />}>
            Open the call's log
          </Anchor>
          <Text size="xs" c="dimmed" truncate>
            {log.model} · {log.inputTokens ?? 0} in, {log.outputTokens ?? 0} out · {formatCost(log.costUsd)}
            {log.outputPreview ? ` · ${log.outputPreview}` : ""}
          </Text>
        </Group>
      ) : null}
      {toolArgs !== undefined || toolResult !== undefined ? (
        <Stack gap={0} pl={row.depth * 16 + 8} mt={2}>
          {toolArgs !== undefined ? (
            <Text size="xs" ff="monospace" truncate>
              arguments: {typeof toolArgs === "string" ? toolArgs : JSON.stringify(toolArgs)}
            </Text>
          ) : null}
          {toolResult !== undefined ? (
            <Text size="xs" ff="monospace" truncate>
              result: {typeof toolResult === "string" ? toolResult : JSON.stringify(toolResult)}
            </Text>
          ) : null}
        </Stack>
      ) : null}
      {open ? (
        <Paper withBorder p="xs" mt={4} ml={row.depth * 16}>
          <Stack gap={4}>
            <Text size="xs">
              Span <Code>{s.spanId}</Code>
              {s.service ? ` · ${s.service}` : ""} · {s.status}
              {s.statusMessage ? `: ${s.statusMessage}` : ""}
            </Text>
            <Code block style={{ maxHeight: 240, overflow: "auto" }}>
              {JSON.stringify(s.attributes, null, 2)}
            </Code>
          </Stack>
        </Paper>
      ) : null}
    </Box>
  );
}

export function TracePage() {
  const { traceId } = useParams({ from: "/traces/$traceId" });
  const trace = useTrace(traceId);
  const t = trace.data;
  const start = t?.startedAt ? Date.parse(t.startedAt) : 0;
  const total = t?.durationMs ?? 0;
  return (
    <>
      <PageHeader
        title={
          <Group gap="xs">
            <Text inherit>Trace</Text>
            <Code fz="md">{traceId}</Code>
          </Group>
        }
        description={
          t ? (
            <Group gap="md">
              <When value={t.startedAt} />
              <Text size="sm">{formatMs(t.durationMs)}</Text>
              <Text size="sm">
                {plural(t.spans.length, "span")}, {plural(t.logs.length, "call")}, {formatCost(t.costUsd)}
              </Text>
              {t.sessionId ? (
                <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/traces" search={{ session: t.sessionId ?? undefined }} />}>
                  session {t.sessionId}
                </Anchor>
              ) : null}
            </Group>
          ) : null
        }
      />
      <ErrorAlert error={trace.error} title="The trace could not be loaded" />
      {t ? (
        <Paper withBorder p="sm" data-testid="waterfall">
          {treeOrder(t.spans).map((row) => (
            <SpanRow key={row.span.spanId} row={row} trace={t} start={start} total={total} />
          ))}
          {t.truncated ? (
            <Text size="xs" c="dimmed" mt="xs">
              Past 2,000 spans or a page of calls (HONE_MAX_PAGE_SIZE, 200 by default) the rest is left out.
            </Text>
          ) : null}
        </Paper>
      ) : null}
    </>
  );
}
