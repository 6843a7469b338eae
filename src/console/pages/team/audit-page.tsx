import { Badge, Button, Code, Group, Select, Stack, Table, Text, TextInput } from "@mantine/core";
import { DataTable } from "../../components/data-table";
import { useDebouncedValue } from "@mantine/hooks";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { PageHeader } from "../../components/page-header";
import { formatTime } from "../../lib/format";
import { useTRPC } from "../../lib/trpc";
import type { AuditEvent, AuditFilter } from "./queries";

const PAGE = 50;

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
          <TextInput label="Action" placeholder="datasets.create" value={verb} onChange={(e) => setVerb(e.currentTarget.value)} />
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
              <Table.Td>{formatTime(e.createdAt)}</Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{e.actor}</Table.Td>
              <Table.Td>
                <Code>{e.action}</Code>{" "}
                {e.outcome === "error" ? (
                  <Badge color="red" variant="light" size="xs">
                    refused
                  </Badge>
                ) : null}
                <Text size="xs" c="dimmed">
                  {e.transport}
                </Text>
              </Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{e.resourceId ?? e.resourceType ?? ""}</Table.Td>
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
