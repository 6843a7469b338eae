import { existsSync, readFileSync } from "node:fs";

// Whether a process recorded in a lock or an owner file (its pid and start time) still runs: the
// embedded database's data directory lock and the log spool's directories use it.

/**
 * A process's identity on Linux: when it started (clock ticks since boot, /proc/<pid>/stat field
 * 22) on which boot, and whether it is a zombie (dead, not yet reaped). Null where /proc is not
 * there (another OS) or the process is gone.
 */
function processInfo(pid: number): { started: string; zombie: boolean } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { started: `${bootId()}:${fields[19]}`, zombie: fields[0] === "Z" };
  } catch {
    return null;
  }
}

let boot: string | undefined;
function bootId(): string {
  if (boot === undefined) {
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      boot = "";
    }
  }
  return boot;
}

/**
 * Whether the process that wrote a lock still runs. A pid that answers signals is not enough: a
 * zombie (dead, its parent never reaped it, as in a container whose init does not) answers, and so
 * does another process that got the pid later. On Linux both are told apart: a zombie is dead, and
 * a process whose start time differs from the one the lock recorded is not the holder.
 */
export function processAlive(held: { pid: number; started?: string }): boolean {
  const info = processInfo(held.pid);
  if (info) return !info.zombie && (held.started === undefined || held.started === info.started);
  if (existsSync("/proc/self/stat")) return false; // Linux, and no such process
  try {
    process.kill(held.pid, 0);
    return true;
  } catch (err) {
    // EPERM means the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This process's start time as processAlive compares it (undefined where /proc is not there). */
export function ownStartTime(): string | undefined {
  return processInfo(process.pid)?.started;
}
