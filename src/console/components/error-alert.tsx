import { Alert } from "@mantine/core";
import { errorMessageOf } from "../lib/trpc";

/** A failed call, with the API's own message. */
export function ErrorAlert({ error, title = "Something went wrong" }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      {errorMessageOf(error)}
    </Alert>
  );
}
