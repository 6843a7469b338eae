import { Group, Loader, SegmentedControl, Stack } from "@mantine/core";
import { lazy, Suspense, useState } from "react";
import { CopyButton } from "../../components/copy-button";

const RawJson = lazy(() => import("./json-view"));

/** Raw JSON (request and response), lazily loaded, with a copy button. */
export function RawView({ request, response, label }: { request: unknown; response: unknown; label: string }) {
  const [which, setWhich] = useState<"request" | "response">("request");
  const data = which === "request" ? request : response;
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <SegmentedControl
          size="xs"
          value={which}
          onChange={(v) => setWhich(v as "request" | "response")}
          data={[
            { value: "request", label: "Request" },
            { value: "response", label: "Response" },
          ]}
          aria-label={`${label}: request or response`}
        />
        <CopyButton value={JSON.stringify(data, null, 2) ?? "null"} label={`Copy ${which} JSON`} />
      </Group>
      <Suspense fallback={<Loader size="sm" aria-label="Loading the JSON viewer" />}>
        <RawJson data={data} label={`${label} ${which} JSON`} />
      </Suspense>
    </Stack>
  );
}
