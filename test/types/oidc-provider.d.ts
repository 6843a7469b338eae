// The parts of oidc-provider (it ships no types) that test/helpers/oidc-provider.ts uses.
declare module "oidc-provider" {
  import type { Server } from "node:http";
  type Account = { accountId: string; claims(): Promise<Record<string, unknown>> };
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount(ctx: unknown, id: string): Promise<Account> });
    proxy: boolean;
    listen(port: number, host: string): Server;
  }
}
