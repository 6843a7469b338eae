import { PageHeader } from "../../components/page-header";

export function UsagePage() {
  return <PageHeader title="Usage" description="Requests, tokens, cost, errors and latency over time." />;
}
