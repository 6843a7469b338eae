import { Alert, Code, List, Stack, Text } from "@mantine/core";
import { errorMessageOf } from "../../lib/trpc";

/** The URL guard's refusals all say "... may not be called: ..." (src/providers/upstream-guard.ts). */
export const isUrlRefusal = (error: unknown) => error != null && /may not be called/i.test(errorMessageOf(error));

/** Why a base URL was refused, and what an operator can change. */
export function UpstreamRulesExplained() {
  return (
    <Alert color="orange" variant="light" title="Why Hone refuses some base URLs" data-testid="ssrf-explanation">
      <Stack gap={6}>
        <Text size="sm">
          A custom provider's URL is chosen by a project, but Hone's server makes the calls. So that no project can make the server reach inside its own
          network, Hone refuses URLs whose host is:
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7, ...)</List.Item>
          <List.Item>
            the local machine: loopback (127.0.0.0/8, ::1) or <Code>localhost</Code>
          </List.Item>
          <List.Item>link-local (169.254.0.0/16, fe80::/10)</List.Item>
          <List.Item>a cloud metadata service (169.254.169.254, metadata.google.internal, ...): never allowed</List.Item>
        </List>
        <Text size="sm">
          Host names are checked again each time a call resolves them. To reach a model server on your own network (vLLM, Ollama), the operator running Hone
          sets one of:
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>
            <Code>HONE_ALLOW_PRIVATE_UPSTREAMS=true</Code>: custom providers may reach loopback, private and link-local addresses
          </List.Item>
          <List.Item>
            <Code>HONE_UPSTREAM_ALLOWLIST=ollama.internal:11434,10.0.0.0/8</Code>: only these hosts, host:port pairs, IPs or CIDRs
          </List.Item>
        </List>
      </Stack>
    </Alert>
  );
}
