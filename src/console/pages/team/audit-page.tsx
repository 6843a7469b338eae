import { Autocomplete, Badge, Button, Code, Group, Select, Stack, Table, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { When } from "../../components/when";
import { DataTable } from "../../components/data-table";
import { useDebouncedValue } from "@mantine/hooks";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { PageHeader } from "../../components/page-header";

import { useTRPC } from "../../lib/trpc";
import type { AuditEvent, AuditFilter } from "./queries";

const PAGE = 50;

/** An e-mail or key name that may break only after its "@" and its dots, never inside a word. */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[@.])/);
  return (
    <>
      {parts.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
        <span key={i}>
          {p}
          {i < parts.length - 1 ? <wbr /> : null}
        </span>
      ))}
    </>
  );
}

/** "datasets.create" as words: "Datasets: create"; "team.updateMemberRole": "Team: update member role". */
export function actionLabel(action: string): string {
  const [area, ...rest] = action.split(".");
  const verb = rest
    .join(".")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
  const name = (area ?? "").replace(/([a-z])([A-Z])/g, "$1 $2");
  return verb ? `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${verb}` : action;
}

/** A resource as its kind in words and a short id (the whole id on hover). */
function ResourceCell({ e }: { e: AuditEvent }) {
  const id = e.resourceId ?? "";
  const short = id.length > 14 ? `${id.slice(0, 12)}…` : id;
  return (
    <span title={id || undefined}>
      {e.resourceType ? (
        <Text span size="sm" c="dimmed">
          {e.resourceType.replaceAll("_", " ")}{" "}
        </Text>
      ) : null}
      {short ? <Code>{short}</Code> : null}
    </span>
  );
}

function summaryText(e: AuditEvent): string {
  const s = JSON.stringify(e.summary ?? {});
  return s.length > 160 ? `${s.slice(0, 160)}…` : s;
}

/** Who changed what, when and from where; filtered, paged, exported as JSON lines (owners and admins). */
export function AuditPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [actor, setActor] = useState("");
  const [verb, setVerb] = useState("");
  const [outcome, setOutcome] = useState<string | null>(null);
  // The actions there are, in words (the filter matches the internal name the choice stands for).
  const rules = useQuery(trpc.access.rules.queryOptions());
  const actionChoices = Object.keys(rules.data ?? {}).sort();
  const [debounced] = useDebouncedValue({ actor, verb }, 300);
  const filter: AuditFilter = {
    ...(debounced.actor ? { actor: debounced.actor } : {}),
    ...(debounced.verb ? { verb: debounced.verb } : {}),
    ...(outcome ? { outcome: outcome as "ok" | "error" } : {}),
  };
  const pages = useInfiniteQuery({
    queryKey: [...trpc.team.auditLog.queryKey(), filter],
    queryFn: ({ pageParam }) => queryClient.fetchQuery(trpc.team.auditLog.queryOptions({ filter, first: PAGE, ...(pageParam ? { after: pageParam } : {}) })),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const exportJsonl = async () => {
    setExporting(true);
    setExportError(null);
    try {
      const parts: string[] = [];
      let after: string | undefined;
      // Page on until the end (each call carries at most 2,000 events).
      for (;;) {
        const page = await queryClient.fetchQuery({ ...trpc.team.auditExport.queryOptions({ filter, ...(after ? { after } : {}) }), staleTime: 0 });
        parts.push(page.jsonl);
        if (!page.next) break;
        after = page.next;
      }
      const url = URL.createObjectURL(new Blob(parts, { type: "application/x-ndjson" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `hone-audit-${new Date().toISOString().slice(0, 10)}.jsonl`;
      a.click();
      URL.revokeObjectURL(url);
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };
  const events = pages.data?.pages.flatMap((p) => p.events) ?? [];
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change on every interface: who (a person or an API key), what, which resource, when, and from where. Append-only."
        actions={
          <Button variant="default" onClick={exportJsonl} loading={exporting}>
            Export JSONL
          </Button>
        }
      />
      <Stack gap="md">
        <Group align="flex-end">
          <TextInput label="Who" placeholder="email or key" value={actor} onChange={(e) => setActor(e.currentTarget.value)} />
          <Autocomplete
            label="Action"
            placeholder="any action"
            w={260}
            value={verb}
            onChange={setVerb}
            data={actionChoices}
            limit={50}
            renderOption={({ option }) => (
              <Stack gap={0}>
                <Text size="sm">{actionLabel(option.value)}</Text>
                <Text size="xs" c="dimmed">
                  {option.value}
                </Text>
              </Stack>
            )}
            comboboxProps={{ withinPortal: true }}
          />
          <Select
            label="Outcome"
            clearable
            w={160}
            data={[
              { value: "ok", label: "Done" },
              { value: "error", label: "Refused" },
            ]}
            value={outcome}
            onChange={setOutcome}
          />
        </Group>
        <DataTable
          label="Audit log"
          striped
          columns={["When", "Who", "Action", "Resource", { label: "Change", visibleFrom: "lg" }, { label: "From", visibleFrom: "md" }]}
          rows={pages.data ? events : undefined}
          loading
          error={pages.error ?? exportError}
          row={(e) => (
            <Table.Tr key={e.id} data-testid="audit-row" data-action={e.action} data-outcome={e.outcome}>
              <Table.Td>
                <When value={e.createdAt} />
              </Table.Td>
              {/* Room for an address on one line where the window has it; broken only at @ and dots where it has not. */}
              <Table.Td style={{ minWidth: "min(26ch, 40vw)" }}>
                <Breakable text={e.actor} />
              </Table.Td>
              <Table.Td>
                <Text span size="sm" title={e.action}>
                  {actionLabel(e.action)}
                </Text>{" "}
                {e.outcome === "error" ? (
                  <Badge color="red" variant="light" size="xs">
                    refused
                  </Badge>
                ) : null}
                <Text size="xs" c="dimmed">
                  {e.transport}
                </Text>
              </Table.Td>
              <Table.Td>
                <ResourceCell e={e} />
              </Table.Td>
              <Table.Td visibleFrom="lg">
                <Text size="xs" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                  {summaryText(e)}
                </Text>
              </Table.Td>
              <Table.Td visibleFrom="md">
                <Text size="xs">{e.address}</Text>
              </Table.Td>
            </Table.Tr>
          )}
        />
        {pages.data && events.length === 0 ? <Text c="dimmed">No changes match.</Text> : null}
        {pages.hasNextPage ? (
          <Button variant="default" onClick={() => pages.fetchNextPage()} loading={pages.isFetchingNextPage} w={200}>
            Load more
          </Button>
        ) : null}
      </Stack>
    </>
  );
}
