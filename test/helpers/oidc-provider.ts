import type { Server } from "node:http";
import Provider from "oidc-provider";

// A real OpenID provider (npm oidc-provider, the certified implementation) on loopback, with its
// development login and consent pages, where any login name signs in; a name with an "@" is the email,
// otherwise <name>@example.com, and the login name is the subject (so `ann` and `ann@example.com` are
// two identities with one email). `unverified-…` names get email_verified: false; `silent-…` names
// get no email_verified claim at all, as Microsoft Entra ID sends none.
export type TestOidcProvider = { issuer: string; clientId: string; clientSecret: string; stop(): Promise<void> };

export async function startOidcProvider(opts: { redirectUri: string }): Promise<TestOidcProvider> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port as number;
  probe.stop(true);
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "hone-console";
  const clientSecret = "a-client-secret-for-tests-only";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    async findAccount(_ctx, id) {
      const email = id.includes("@") ? id : `${id}@example.com`;
      return {
        accountId: id,
        async claims() {
          const verified = id.startsWith("silent") ? {} : { email_verified: !id.startsWith("unverified") };
          return { sub: id, email, ...verified, name: id.split("@")[0] };
        },
      };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: ["oidc-provider-test-cookie-key"] },
    features: { devInteractions: { enabled: true } },
  });
  // The provider speaks plain http on loopback in tests; it warns about that, not refuses.
  provider.proxy = false;
  const server: Server = provider.listen(port, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    issuer,
    clientId,
    clientSecret,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
