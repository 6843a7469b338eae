import { Tabs } from "@mantine/core";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { PageHeader } from "../../components/page-header";
import { ApiKeysTab } from "./api-keys-tab";
import { CustomProvidersTab } from "./custom-providers-tab";
import { GetStartedTab } from "./get-started-tab";
import { MaskingTab } from "./masking-tab";
import { PricesTab } from "./prices-tab";
import { ProviderKeysTab } from "./provider-keys-tab";
import { TrainersTab } from "./trainers-tab";
import { SETTINGS_TABS, type SettingsSearch, type SettingsTab } from "./settings-search";

export function SettingsPage() {
  const search = useSearch({ from: "/settings" }) as SettingsSearch;
  const navigate = useNavigate({ from: "/settings" });
  const tab = search.tab ?? "get-started";
  return (
    <>
      <PageHeader title="Settings" description="API keys, provider keys, custom providers, prices, masking, trainers, and how to call this server." />
      <Tabs value={tab} onChange={(v) => v && navigate({ search: { tab: v as SettingsTab } })} keepMounted={false}>
        <Tabs.List mb="md">
          {SETTINGS_TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="get-started">
          <GetStartedTab />
        </Tabs.Panel>
        <Tabs.Panel value="api-keys">
          <ApiKeysTab />
        </Tabs.Panel>
        <Tabs.Panel value="provider-keys">
          <ProviderKeysTab />
        </Tabs.Panel>
        <Tabs.Panel value="providers">
          <CustomProvidersTab />
        </Tabs.Panel>
        <Tabs.Panel value="prices">
          <PricesTab />
        </Tabs.Panel>
        <Tabs.Panel value="masking">
          <MaskingTab />
        </Tabs.Panel>
        <Tabs.Panel value="trainers">
          <TrainersTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
