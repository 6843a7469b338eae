import { Alert, Anchor, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { TRPCClientError } from "@trpc/client";
import { errorMessageOf } from "../lib/trpc";

const forbidden = (error: unknown) => error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "FORBIDDEN";

/**
 * A failed call, with the API's own message. One the signed-in role may not make is said as such
 * (who may, and the role one has), with a way back, rather than as a failure.
 */
export function ErrorAlert({ error, title = "Something went wrong" }: { error: unknown; title?: string }) {
  if (!error) return null;
  if (forbidden(error)) {
    return (
      <Alert color="yellow" title="Not open to your role" role="alert" variant="light" data-testid="not-for-role">
        <Text size="sm">{errorMessageOf(error)}.</Text>
        <Anchor size="sm" underline="always" renderRoot={(props) => <Link {...props} to="/logs" />}>
          Back to the logs
        </Anchor>
      </Alert>
    );
  }
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      {errorMessageOf(error)}
    </Alert>
  );
}
