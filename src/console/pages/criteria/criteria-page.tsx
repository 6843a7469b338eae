import { Badge, Button, Group, Modal, Paper, Stack, Table, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatRelative } from "../../lib/format";
import { promptProblems } from "../../lib/messages";
import { useTRPC } from "../../lib/trpc";
import { PromptField } from "./prompt-editor";

const EXAMPLE_PROMPT = `Does the answer respond to the user's last message correctly and politely?

Conversation:
{{messages}}

Answer to judge:
{{output}}`;

export const formatRatio = (v: number | null | undefined) => (v == null ? "–" : v.toFixed(2));

function CreateCriterion({ onClose }: { onClose(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [judgeModel, setJudgeModel] = useState("gpt-4o-mini");
  const [prompt, setPrompt] = useState(EXAMPLE_PROMPT);
  const problems = promptProblems(prompt);
  const create = useMutation(
    trpc.criteria.create.mutationOptions({
      onSuccess: async (c) => {
        await queryClient.invalidateQueries({ queryKey: trpc.criteria.list.queryKey() });
        notifications.show({ message: `Criterion ${c.name} created` });
        onClose();
        void navigate({ to: "/criteria/$criterionId", params: { criterionId: c.id } });
      },
    }),
  );
  return (
    <Modal opened onClose={onClose} title="New criterion" size="lg">
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name, judgeModel, prompt });
        }}
      >
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
        <TextInput
          label="Judge model"
          description="Any model string the gateway routes (gpt-4o-mini, anthropic:claude-…, hone:<slug>)"
          value={judgeModel}
          onChange={(e) => setJudgeModel(e.currentTarget.value)}
          required
        />
        <PromptField prompt={prompt} setPrompt={setPrompt} />
        <ErrorAlert error={create.error} title="Not created" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} disabled={problems.length > 0}>
            Create criterion
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function CriteriaPage() {
  const trpc = useTRPC();
  const list = useQuery(trpc.criteria.list.queryOptions());
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Criteria"
        description="LLM judges that give PASS or FAIL. Align each with human labels before you trust it."
        actions={<Button onClick={() => setCreating(true)}>New criterion</Button>}
      />
      <ErrorAlert error={list.error} />
      {list.data && list.data.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No criteria yet</Text>
          <Text size="sm" c="dimmed">
            A criterion is a judge model and a prompt. Create one, label 30 or more examples, and run it against your labels to see its precision and recall.
          </Text>
        </Paper>
      ) : null}
      {list.data?.length ? (
        <Table striped highlightOnHover aria-label="Criteria">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Latest version</Table.Th>
              <Table.Th>Judge model</Table.Th>
              <Table.Th>Last alignment F1</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.map((c) => {
              const latest = c.versions.at(-1);
              return (
                <Table.Tr key={c.id} data-testid="criterion-row">
                  <Table.Td>
                    <Link to="/criteria/$criterionId" params={{ criterionId: c.id }}>
                      {c.name}
                    </Link>
                  </Table.Td>
                  <Table.Td>v{c.latestVersion}</Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {latest?.judgeModel}
                    </Text>
                  </Table.Td>
                  <Table.Td data-testid="criterion-f1">
                    {c.lastAlignment ? (
                      <Group gap={6}>
                        <Text size="sm">{formatRatio(c.lastAlignment.f1)}</Text>
                        <Badge variant="light" color="gray" tt="none">
                          v{c.lastAlignment.version} · {c.lastAlignment.rows} rows
                        </Badge>
                      </Group>
                    ) : (
                      <Text size="sm" c="dimmed">
                        not aligned yet
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{formatRelative(c.createdAt)}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      ) : null}
      {creating ? <CreateCriterion onClose={() => setCreating(false)} /> : null}
    </>
  );
}
