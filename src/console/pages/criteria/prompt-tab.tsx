import { Code, Group, Select, Stack, Text } from "@mantine/core";
import { When } from "../../components/when";
import { MayButton } from "../../components/may-button";
import { useState } from "react";
import { TextDiff } from "../../components/text-diff";

import { NewVersion } from "./new-version";
import type { CriterionDetail } from "./queries";
import { TryIt } from "./try-it";

/** The versions of a criterion: each one's prompt and its diff against the one before; a new version; try it. */
export function PromptTab({ criterion }: { criterion: CriterionDetail }) {
  // null: the latest version, whichever it is (a saved new version is shown at once).
  const [picked, setPicked] = useState<number | null>(null);
  const [editing, setEditing] = useState(false);
  const version = criterion.versions.find((v) => v.version === (picked ?? criterion.latestVersion)) ?? criterion.versions.at(-1)!;
  const previous = criterion.versions.find((v) => v.version === version.version - 1);
  return (
    <Stack>
      {editing ? (
        <NewVersion
          criterion={criterion}
          onCancel={() => setEditing(false)}
          onSaved={(v) => {
            setEditing(false);
            setPicked(v);
          }}
        />
      ) : null}
      <Group align="flex-end" justify="space-between">
        <Group align="flex-end">
          <Select
            label="Version"
            w={200}
            data={criterion.versions.map((v) => ({
              value: String(v.version),
              label: `v${v.version}${v.version === criterion.latestVersion ? " (latest)" : ""}`,
            }))}
            value={String(version.version)}
            onChange={(v) => v && setPicked(Number(v))}
            allowDeselect={false}
          />
          <Text size="sm" c="dimmed" pb={8} data-testid="version-shown">
            v{version.version} saved <When value={version.createdAt} /> · judge <Code>{version.judgeModel}</Code>
          </Text>
        </Group>
        {!editing ? (
          <MayButton may="criteria.createVersion" onClick={() => setEditing(true)}>
            Edit (new version)
          </MayButton>
        ) : null}
      </Group>
      {previous ? (
        <Stack gap="xs" data-testid="version-diff">
          {previous.judgeModel !== version.judgeModel ? (
            <Text size="sm">
              Judge model: <del>{previous.judgeModel}</del> → <ins>{version.judgeModel}</ins>
            </Text>
          ) : null}
          <TextDiff before={previous.prompt} after={version.prompt} label={`v${version.version} against v${previous.version}`} />
        </Stack>
      ) : (
        <Code block style={{ whiteSpace: "pre-wrap" }} data-testid="version-prompt">
          {version.prompt}
        </Code>
      )}
      <TryIt criterionId={criterion.id} version={version.version} />
    </Stack>
  );
}
