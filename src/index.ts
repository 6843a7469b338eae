import { createApp } from "./app";
import { ConfigError, loadConfig } from "./core/config";
import { newControlToken, writeControlFile } from "./core/control-file";
import { DataDirLockedError, isMemoryDataDir, openDatabase } from "./db/client";
import { migrateFreshPgliteInChild } from "./db/migrate-in-child";
import { createDeps } from "./compose";
import { bootstrapProjects } from "./domain/projects";
import { applyRoutesFile, MAX_ROUTES_FILE_BYTES, parseRoutesFile } from "./domain/routing";
import { settleResponseSaves } from "./domain/protocols";
import { createLogger, errorFields } from "./core/logger";
import { resolveSecretKey } from "./db/secret-key";
import { systemCtx } from "./domain/context";
import { startCacheSweep } from "./background/cache-sweep";
import { startJobs } from "./background";
import { startJobsThread } from "./background/start-jobs-thread";
import { startIngestThread } from "./background/ingest-thread";
import { createLogWriter } from "./log-writer/log-writer";
import { createThreadedLogWriter } from "./log-writer/threaded-log-writer";
import { openSpool } from "./log-writer/spool";
import { spoolDatabaseKey } from "./log-writer/spool-files";
import { insertLogRows } from "./domain/logs";
import { startLogRetention } from "./background/retention";
import { startUsageRollups } from "./background/usage-rollups";
import { startLimitUpkeep } from "./background/limit-upkeep";
import { firstOwnerLink } from "./domain/teams";
import { returnLeases } from "./domain/limits";
import { closeSpanExport, flushRefusals } from "./domain/calls";

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  // The last resort: an error no request handler caught (an event emitted with no listener, a
  // throw in a timer, a promise nobody awaited) is logged, and the process goes on serving every
  // other caller instead of dropping their connections and the logs queued in memory.
  process.on("uncaughtException", (err) => logger.error("uncaught error: the process keeps serving", errorFields(err)));
  process.on("unhandledRejection", (reason) => logger.error("unhandled promise rejection: the process keeps serving", errorFields(reason)));
  const secretKey = resolveSecretKey(config);
  const started = performance.now();
  // A fresh embedded database is copied from the migrated template, or created and migrated by a
  // child process, so this one keeps only the memory of opening it (PGlite's WebAssembly memory
  // never shrinks after the migrations).
  // (Migrated there just now by this same code: not checked again here.)
  const migrated = await migrateFreshPgliteInChild(config, (why) => logger.warn(why));
  const database = await openDatabase(config, { owner: "hone server", migrate: !migrated });
  // On Postgres, logs are stored from their own thread (with their own connection), so the
  // request path pays only for serialising them; PGlite lives in this thread, and so does its writer.
  // Every log is spooled to disk before its call's answer ends (and replayed from there if the
  // database cannot take it): an answered call is not lost to a crash or a database outage.
  const spool = config.spool.dir ? await openConfiguredSpool(config.spool.dir) : undefined;
  async function openConfiguredSpool(dir: string) {
    try {
      return openSpool({
        root: dir,
        database: spoolDatabaseKey(config),
        maxBytes: config.spool.maxBytes,
        syncMs: config.spool.syncMs,
        logger,
        store: (rows) => insertLogRows(database.db, rows, { late: true }),
      });
    } catch (err) {
      await database.close();
      throw new ConfigError(
        `HONE_SPOOL_DIR ${dir} cannot be used for the log spool (${err instanceof Error ? err.message : String(err)}): ` +
          `make it writable, point HONE_SPOOL_DIR elsewhere, or set HONE_SPOOL_DIR=off`,
      );
    }
  }
  const inThread = () =>
    createLogWriter({ database, logger, ...(spool ? { spool } : {}) }, { maxDelayMs: config.logFlushMs, maxPayloadBytes: config.maxLoggedPayloadBytes });
  const logWriter = database.kind === "postgres" ? createThreadedLogWriter(config, logger, inThread(), spool) : inThread();
  const deps = createDeps({ config, database, logger, secretKey, logWriter });

  const boot = await bootstrapProjects(systemCtx(deps, "bootstrap"), { bootstrapApiKey: config.bootstrapApiKey });
  if (boot.newApiKey) {
    // Printed once, on the first start; only its hash is stored, so it cannot be shown again.
    process.stdout.write(
      `\nCreated project "default" (${boot.createdProjectId}).\n` +
        `Its API key, shown only this once:\n\n    ${boot.newApiKey}\n\n` +
        `Sign in to the console (http://${["0.0.0.0", "::"].includes(config.host) ? "localhost" : config.host}:${config.port}/) with it, then give each person and service a named key\n` +
        `under Settings -> API keys, or with the CLI (it works while this server runs):\n` +
        `    bun run hone keys create --project ${boot.createdProjectId} --name <name>\n\n`,
    );
  }

  // Routes kept in a file: applied before the first call is served; a bad file stops the start.
  const routesFile = config.routing.routesFile;
  const applyRoutes = async (when: string) => {
    const file = Bun.file(routesFile!);
    if (file.size > MAX_ROUTES_FILE_BYTES) throw new Error(`HONE_ROUTES_FILE ${routesFile} is larger than ${MAX_ROUTES_FILE_BYTES} bytes`);
    const entries = parseRoutesFile(routesFile!, await file.text());
    const r = await applyRoutesFile(systemCtx(deps, "routes-file"), routesFile!, entries);
    logger.info("routes file applied", { path: routesFile, when, created: r.created, updated: r.updated, unchanged: r.unchanged.length });
  };
  if (routesFile) {
    try {
      await applyRoutes("start");
    } catch (err) {
      await database.close();
      throw new ConfigError(err instanceof Error ? err.message : String(err));
    }
  }

  // On the embedded database the CLI cannot open the data directory while this server holds it:
  // it hands its commands to the server, with the token written below.
  const controlToken = database.kind === "pglite" && !isMemoryDataDir(config.dataDir) ? newControlToken() : undefined;
  const app = createApp(deps, { controlToken });
  // The console is bundled in the background while the server starts listening; a page requested
  // before it is ready waits for it.
  app.warmConsole().catch(() => {});
  const retention = startLogRetention(deps, { firstRunMs: 0 });
  const rollups = startUsageRollups(deps);
  const cacheSweep = startCacheSweep(deps);
  const limitUpkeep = startLimitUpkeep(deps);
  // On PGlite the worker runs in this process (the only one), on this thread; on Postgres every
  // process runs one on its own thread unless HONE_WORKER=false, and SKIP LOCKED hands each job to
  // one of them.
  const worker = !config.worker ? null : database.kind === "postgres" ? startJobsThread(deps) : startJobs(deps);
  // On Postgres, OTLP exports are decoded and stored on a thread of their own (docs/traces.md).
  const ingest = database.kind === "postgres" ? startIngestThread(deps) : null;
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // Bun rejects larger bodies before they reach us; the app's own check answers in the spec's envelope.
    maxRequestBodySize: Math.max(config.maxBodyBytes, config.maxImportBytes) + 1024,
    idleTimeout: 255,
    fetch: (request, server) => app.handle(request, server.requestIP(request)?.address, () => server.timeout(request, 0)),
  });
  const removeControlFile = controlToken
    ? writeControlFile(config.dataDir, { url: `http://${localHost(server.hostname ?? "127.0.0.1")}:${server.port}`, token: controlToken, pid: process.pid })
    : () => {};
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    // Stop accepting; in-flight requests finish before the promise resolves.
    retention.stop();
    rollups.stop();
    cacheSweep.stop();
    limitUpkeep.stop();
    await worker?.stop();
    removeControlFile();
    await server.stop(false);
    // Exports already received are stored before the database closes.
    await ingest?.stop();
    // Responses stored off the answer's path: written before the database closes.
    await settleResponseSaves(deps);
    // What calls settled against limits is written, and the unused slices given back.
    await returnLeases(deps);
    // Refusals folded per key and minute are written with the rest.
    flushRefusals(deps);
    // Hone's own spans still queued for the collector are sent (docs/traces.md).
    await closeSpanExport(deps.config);
    // Logs of the calls that just finished are still queued: store them before closing.
    await deps.logWriter.close();
    // What could not be stored stays in the spool for the next start.
    await spool?.close();
    await database.close();
    logger.info("stopped", { signal });
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // SIGHUP reads the routes file again; a bad one changes nothing and says why.
  process.on("SIGHUP", () => {
    if (!routesFile) return logger.warn("SIGHUP ignored: HONE_ROUTES_FILE is not set");
    applyRoutes("SIGHUP").catch((err) => logger.error("routes file not applied: the routes stay as they were", errorFields(err)));
  });
  // With no person yet, a one-time link makes the first owner (the admin token keeps working for automation).
  const firstOwner = await firstOwnerLink(
    deps,
    config.publicUrl ?? `http://${["0.0.0.0", "::"].includes(config.host) ? "localhost" : localHost(server.hostname ?? "127.0.0.1")}:${server.port}`,
  ).catch((err) => {
    logger.warn("could not make the first-owner link", errorFields(err));
    return null;
  });
  if (firstOwner) {
    process.stdout.write(
      `\nNo one has an account yet. Create the first owner (works once, for 24 hours):\n\n    ${firstOwner}\n\n` +
        "A new link is printed at each start until someone has used one.\n\n",
    );
  }

  // Said once a signal would be handled: a supervisor that stops the server as soon as it is up
  // gets a clean shutdown, not the default kill.
  logger.info("listening", {
    url: `http://${server.hostname}:${server.port}`,
    database: database.kind,
    startMs: Math.round(performance.now() - started),
  });
}

/** How this machine reaches the listening address (a wildcard is reached on loopback). */
function localHost(hostname: string): string {
  if (hostname === "0.0.0.0") return "127.0.0.1";
  if (hostname === "::") return "[::1]";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`hone: ${err.message}\n`);
  } else {
    process.stderr.write(`${JSON.stringify({ level: "error", msg: "failed to start", ...errorFields(err) })}\n`);
  }
  process.exit(1);
});
