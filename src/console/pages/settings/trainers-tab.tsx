import { Alert, Badge, Button, Code, Stack, Table, Text } from "@mantine/core";
import { When } from "../../components/when";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CopyButton } from "../../components/copy-button";
import { DataTable } from "../../components/data-table";
import { SectionIntro } from "../../components/section-intro";

import { useCan } from "../../lib/session";
import { useTRPC } from "../../lib/trpc";
import { useCreateApiKey } from "./queries";

/** Bytes as GiB, for GPU memory. */
const gib = (b: number | null) => (b === null ? "" : ` (${Math.round(b / 1024 ** 3)} GiB)`);

/** Settings -> Trainers: the machines running `hone-trainer work` for this project, and a token for a new one. */
export function TrainersTab() {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.trainers.list.queryOptions(), refetchInterval: 10_000 });
  const create = useCreateApiKey();
  const [token, setToken] = useState<string | null>(null);
  // Making keys is admin work: others see the trainers, not the button.
  const canMake = useCan("admin");
  const command = token ? `HONE_TRAINER_TOKEN=${token} hone-trainer work --url ${window.location.origin}` : "";
  return (
    <Stack>
      <SectionIntro
        action={
          canMake && (
            <Button
              loading={create.isPending}
              onClick={() => create.mutate({ name: "trainer", scopes: ["trainer"] }, { onSuccess: (k) => setToken(k.apiKey) })}
            >
              Make a trainer token
            </Button>
          )
        }
      >
        Trainers train open models where your GPUs are (<Code>pip install ./trainer</Code>, then <Code>hone-trainer work</Code>): each connects out to this
        server, leases one fine-tune at a time, and uploads the weights, which stay yours. A trainer token can do nothing else.
      </SectionIntro>
      {token ? (
        <Alert title="Run this where the GPUs are" data-testid="trainer-command">
          <Stack gap="xs">
            <Text size="sm">The token is shown this once. Several trainers may share it; each takes its own jobs.</Text>
            <Code block>{command}</Code>
            <div>
              <CopyButton value={command} label="Copy the command" />
            </div>
          </Stack>
        </Alert>
      ) : null}
      <DataTable
        label="Trainers"
        testId="trainers-table"
        striped
        minWidth={760}
        columns={["Name", "Host", "GPUs", "Versions", "Last heard from", "Training"]}
        query={list}
        empty="No trainer has asked for work yet. Make a token and run the command on a machine with a GPU."
        row={(r) => (
          <Table.Tr key={r.name} data-trainer={r.name}>
            <Table.Td>
              <Text size="sm" fw={500}>
                {r.name}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{r.host}</Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{r.gpus.length ? r.gpus.map((g) => `${g.name}${gib(g.memoryBytes)}`).join(", ") : "CPU only"}</Text>
            </Table.Td>
            <Table.Td>
              <Text size="xs" ff="monospace">
                {Object.entries(r.versions)
                  .map(([k, v]) => `${k} ${v}`)
                  .join(", ")}
              </Text>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={r.online ? "green" : "gray"} mr="xs">
                {r.online ? "online" : "away"}
              </Badge>
              <Text size="sm" span>
                <When value={r.lastSeenAt} />
              </Text>
            </Table.Td>
            <Table.Td>{r.training ? <Code>hone:{r.training}</Code> : <Text size="sm">idle</Text>}</Table.Td>
          </Table.Tr>
        )}
      />
    </Stack>
  );
}
