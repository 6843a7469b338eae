// The settings page's tab in the URL. No heavy imports: the router loads this with the shell.

export const SETTINGS_TABS = [
  { value: "get-started", label: "Get started" },
  { value: "api-keys", label: "API keys" },
  { value: "provider-keys", label: "Provider keys" },
  { value: "providers", label: "Custom providers" },
  { value: "prices", label: "Prices" },
  { value: "masking", label: "Masking" },
  { value: "trainers", label: "Trainers" },
] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number]["value"];
export type SettingsSearch = { tab?: SettingsTab };

export function parseSettingsSearch(raw: Record<string, unknown>): SettingsSearch {
  const tab = SETTINGS_TABS.find((t) => t.value === raw.tab);
  return tab ? { tab: tab.value } : {};
}
