import { PageHeader } from "../../components/page-header";

export function LogsPage() {
  return <PageHeader title="Request logs" description="Every call through the gateway or reported by a client." />;
}
