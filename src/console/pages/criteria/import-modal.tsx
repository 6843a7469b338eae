import { Button, Group, Modal, Progress, Select, Stack, Tabs, Text, Textarea } from "@mantine/core";
import { NAMED_CLOSE } from "../../components/modal-close";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { FileDrop, RefusedLines } from "../../components/file-drop";
import { plural } from "../../lib/format";
import { errorMessageOf } from "../../lib/trpc";
import { type ImportResult, useAlignmentImports, useDatasetsList } from "./queries";

/** Adds rows to the set: a JSONL upload, logged calls by id, or a dataset split's entries. */
export function ImportModal({ criterionId, onClose }: { criterionId: string; onClose(): void }) {
  const datasets = useDatasetsList();
  const imports = useAlignmentImports(criterionId);
  const form = useForm({ mode: "controlled", initialValues: { logIds: "", datasetId: null as string | null, split: "TEST" } });
  const [result, setResult] = useState<ImportResult | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<ImportResult>) => {
    setBusy(true);
    setFailed(null);
    setResult(null);
    try {
      setResult(await work());
    } catch (err) {
      setFailed(errorMessageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const { logIds, datasetId, split } = form.values;
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title="Add rows to the alignment set" size="lg">
      <Tabs defaultValue="upload">
        <Tabs.List mb="md">
          <Tabs.Tab value="upload">Upload JSONL</Tabs.Tab>
          <Tabs.Tab value="logs">From logs</Tabs.Tab>
          <Tabs.Tab value="dataset">From a dataset</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="upload">
          <FileDrop
            onFile={(file) => void run(async () => imports.jsonl(await file.text()))}
            title="Drop a .jsonl file here, or click to choose one"
            hint={
              <>
                One row per line, as a fine-tuning line whose last message is the output to judge, with an optional "judgement": "PASS" or "FAIL". Up to 10 MB;
                bad lines are listed by number.
              </>
            }
          />
        </Tabs.Panel>
        <Tabs.Panel value="logs">
          <form onSubmit={form.onSubmit((v) => void run(() => imports.logs(v.logIds.split(/\s+/).filter(Boolean).slice(0, 1000))))}>
            <Stack>
              <Textarea
                label="Log ids"
                description="One per line (copy them from the Logs page). Each call's answer becomes the output to judge."
                {...form.getInputProps("logIds")}
                autosize
                minRows={4}
                maxRows={10}
              />
              <Button type="submit" disabled={!logIds.trim()} loading={busy}>
                Add logs
              </Button>
            </Stack>
          </form>
        </Tabs.Panel>
        <Tabs.Panel value="dataset">
          <form
            onSubmit={form.onSubmit((v) => {
              if (v.datasetId) void run(() => imports.dataset(v.datasetId!, v.split as "TRAIN" | "TEST"));
            })}
          >
            <Stack>
              <Group grow>
                <Select
                  label="Dataset"
                  data={(datasets.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
                  {...form.getInputProps("datasetId")}
                  searchable
                />
                <Select label="Split" data={["TRAIN", "TEST"]} value={split} onChange={(v) => form.setFieldValue("split", v ?? "TEST")} allowDeselect={false} />
              </Group>
              <Text size="xs" c="dimmed">
                Takes up to 200 entries of the split; each entry's last assistant turn becomes the output to judge.
              </Text>
              <Button type="submit" disabled={!datasetId} loading={busy}>
                Add entries
              </Button>
            </Stack>
          </form>
        </Tabs.Panel>
      </Tabs>
      <Stack mt="md" gap="xs">
        {busy ? <Progress value={100} animated aria-label="Importing" /> : null}
        {failed ? (
          <Text c="red" role="alert">
            {failed}
          </Text>
        ) : null}
        {result ? (
          <>
            <Text size="sm" data-testid="alignment-import-summary">
              {plural(result.rowsImported, "row")} added; {plural(result.errors.length, "line")} refused.
            </Text>
            <RefusedLines errors={result.errors} />
          </>
        ) : null}
      </Stack>
    </Modal>
  );
}
