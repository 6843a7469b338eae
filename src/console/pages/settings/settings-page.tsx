import { PageHeader } from "../../components/page-header";

export function SettingsPage() {
  return <PageHeader title="Settings" description="API keys, provider keys, custom providers, and how to call this server." />;
}
