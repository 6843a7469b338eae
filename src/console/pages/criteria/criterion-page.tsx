import { Button, Group, Loader, Tabs, Text } from "@mantine/core";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { plural } from "../../lib/format";
import { AlignmentRunsTab } from "./alignment-runs";
import { AlignmentSetTab } from "./alignment-set";
import { PromptTab } from "./prompt-tab";
import { useCriterion, useDeleteCriterion } from "./queries";
import type { CriterionSearch } from "./search";

export function CriterionPage() {
  const { criterionId } = useParams({ from: "/criteria/$criterionId" });
  const search = useSearch({ from: "/criteria/$criterionId" }) as CriterionSearch;
  const navigate = useNavigate();
  const criterion = useCriterion(criterionId);
  const setSearch = (patch: Partial<CriterionSearch>) =>
    void navigate({ to: "/criteria/$criterionId", params: { criterionId }, search: (old) => ({ ...(old as CriterionSearch), ...patch }), replace: true });
  const [deleting, setDeleting] = useState(false);
  const remove = useDeleteCriterion(() => void navigate({ to: "/criteria" }));
  if (criterion.error) return <ErrorAlert error={criterion.error} title="Criterion not found" />;
  const c = criterion.data;
  if (!c) return <Loader aria-label="Loading criterion" />;
  return (
    <>
      <PageHeader
        mutates="member"
        title={c.name}
        description={
          <span>
            {plural(c.versions.length, "version")} · refer to it as <code>{c.id}</code> (latest) or <code>{`${c.id}@v${c.latestVersion}`}</code> ·{" "}
            <Link to="/criteria">all criteria</Link>
          </span>
        }
        actions={
          <Group>
            <Button color="red" variant="light" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </Group>
        }
      />
      <ConfirmDelete
        opened={deleting}
        title={`Delete ${c.name}?`}
        confirmLabel="Delete criterion"
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ criterionId })}
        mutation={remove}
      >
        <Text size="sm">Its versions, alignment set and runs go with it. Calls that name it will fail.</Text>
      </ConfirmDelete>
      <Tabs value={search.tab ?? "prompt"} onChange={(v) => setSearch({ tab: v === "prompt" ? undefined : (v as CriterionSearch["tab"]) })} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="prompt">Prompt and versions</Tabs.Tab>
          <Tabs.Tab value="set">Alignment set</Tabs.Tab>
          <Tabs.Tab value="runs">Alignment runs</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="prompt">
          <PromptTab criterion={c} />
        </Tabs.Panel>
        <Tabs.Panel value="set">
          <AlignmentSetTab criterionId={c.id} view={search.view ?? "label"} setView={(v) => setSearch({ view: v === "label" ? undefined : v })} />
        </Tabs.Panel>
        <Tabs.Panel value="runs">
          <AlignmentRunsTab criterion={c} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
