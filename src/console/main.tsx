import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import { type CSSVariablesResolver, Center, createTheme, darken, Loader, localStorageColorSchemeManager, MantineProvider } from "@mantine/core";
import { ModalsProvider } from "@mantine/modals";
import { Notifications } from "@mantine/notifications";
import { type QueryClient, QueryClientProvider, useQuery, useQueryClient } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode, useEffect, useState } from "react";
import type { AppRouter } from "../http/trpc/router";
import { createRoot } from "react-dom/client";
import { ErrorAlert } from "./components/error-alert";
import { SessionContext } from "./lib/session";
import { ShortcutsProvider } from "./lib/shortcuts";
import { type Client, createClient, createQueryClient, errorCodeOf, onSessionEnded, replaceSession, TRPCProvider, useTRPC } from "./lib/trpc";
import { prefetchLogsPage } from "./pages/logs/first-page";
import { SignInPage } from "./pages/sign-in";
import { InvitePage } from "./pages/team/invite-page";
import { router } from "./router";

// Mantine's defaults fall short of WCAG AA contrast (4.5:1) for dimmed text and for white text on the
// primary colour's 6th shade: a darker shade and darker dimmed text in light, lighter in dark.
const theme = createTheme({
  primaryColor: "indigo",
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: "md",
  fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
});
const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": t.colors.gray[7]!,
    "--mantine-color-placeholder": t.colors.gray[7]!,
    "--mantine-color-anchor": t.colors.indigo[8]!,
    // Masked values' placeholders (<EMAIL_1>), set apart in any text (components/placeholders.tsx).
    "--hone-placeholder-color": t.colors.violet[9]!,
    // Light-variant text (badges such as a message's role, light buttons) sits on shade 1: shade 9
    // alone is under 4.5:1 for teal, green, yellow, orange; 30% darker is over it for every colour.
    ...Object.fromEntries(Object.entries(t.colors).map(([name, shades]) => [`--mantine-color-${name}-light-color`, darken(shades[9]!, 0.3)])),
  },
  dark: {
    "--mantine-color-dimmed": t.colors.dark[1]!,
    "--mantine-color-placeholder": t.colors.dark[1]!,
    "--mantine-color-anchor": t.colors.indigo[3]!,
    "--hone-placeholder-color": t.colors.violet[2]!,
  },
});
const colorSchemeManager = localStorageColorSchemeManager({ key: "hone-color-scheme" });

/** Signed in: the shell and its pages. Not signed in: the sign-in page. Session gone: says so. */
function Gate() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.session.me.queryOptions(undefined, { staleTime: 60_000 }));
  const [ended, setEnded] = useState(false);
  const invite = window.location.pathname === "/invite";
  useEffect(
    () =>
      onSessionEnded(() => {
        setEnded(true);
        replaceSession(queryClient, trpc.session.me.queryKey(), null);
      }),
    [queryClient, trpc],
  );
  useEffect(() => {
    if (me.data) setEnded(false);
  }, [me.data]);
  // An invitation link is answered signed in or not: accepting it starts a new session.
  if (invite) return <InvitePage />;
  if (me.isPending) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (me.error && errorCodeOf(me.error) !== "UNAUTHORIZED") {
    return (
      <Center mih="100vh" p="md">
        <ErrorAlert error={me.error} title="The console cannot reach Hone" />
      </Center>
    );
  }
  if (!me.data) return <SignInPage key={ended ? "ended" : "fresh"} ended={ended || errorCodeOf(me.error) === "UNAUTHORIZED"} />;
  return (
    <SessionContext.Provider value={me.data}>
      <RouterProvider router={router} />
    </SessionContext.Provider>
  );
}

/**
 * A first load of the Logs page asks for its rows now, alongside the session check and the page's
 * modules (preloaded by the HTML), rather than once both are done.
 */
function prefetchForLocation(queryClient: QueryClient, client: Client) {
  const location = router.parseLocation(router.history.location);
  if (location.pathname !== "/" && location.pathname !== "/logs" && !location.pathname.startsWith("/logs/")) return;
  const trpc = createTRPCOptionsProxy<AppRouter>({ client, queryClient });
  prefetchLogsPage(queryClient, trpc, client, location.pathname === "/" ? {} : location.search);
}

function App({ queryClient, trpcClient }: { queryClient: QueryClient; trpcClient: Client }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager} cssVariablesResolver={cssVariablesResolver}>
      {/* Bottom right: a toast never covers Sign out or a dialog's close button. */}
      <Notifications position="bottom-right" autoClose={3000} limit={3} />
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          <ModalsProvider>
            <ShortcutsProvider>
              <Gate />
            </ShortcutsProvider>
          </ModalsProvider>
        </TRPCProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}

const queryClient = createQueryClient();
const trpcClient = createClient();
prefetchForLocation(queryClient, trpcClient);
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App queryClient={queryClient} trpcClient={trpcClient} />
  </StrictMode>,
);
