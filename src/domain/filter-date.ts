import { z } from "zod";

// Filter values are compared with integer and indexed text columns: a value no row can hold is a
// 400 here rather than an out-of-range error from the database. Shared by every area that takes a
// date in its input (logs filters, price overrides, invoices).
export const FilterDate = z.coerce.date().refine((d) => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999, "must be a date between the years 1 and 9999");
