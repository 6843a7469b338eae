import { expect, test } from "bun:test";
import { statusOf, toDomainError } from "../../src/core/errors";

// Driver errors that carry meaning for the client are mapped once, for every transport; the rest
// stay INTERNAL. Drizzle wraps the driver's error in `cause`, so the mapping looks through it.
const driverError = (code: string) => Object.assign(new Error("Failed query: insert into …"), { cause: Object.assign(new Error("driver"), { code }) });

test("a foreign key violation (the parent deleted meanwhile) is a 404, not a 500", () => {
  const e = toDomainError(driverError("23503"));
  expect(e.code).toBe("NOT_FOUND");
  expect(statusOf(e)).toBe(404);
  expect(e.message).not.toContain("insert");
});

test("data exceptions are 400, a cancelled statement 503, anything else INTERNAL", () => {
  expect(toDomainError(driverError("22021")).code).toBe("VALIDATION");
  expect(toDomainError(driverError("22003")).message).toContain("number");
  expect(toDomainError(driverError("57014")).code).toBe("UNAVAILABLE");
  const other = toDomainError(driverError("42P01"));
  expect(other.code).toBe("INTERNAL");
  expect(other.message).toBe("Internal server error");
});
