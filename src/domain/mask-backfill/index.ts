export {
  failMaskingBackfill,
  getMaskingBackfill,
  listMaskingBackfills,
  MASK_BACKFILL_JOB,
  type MaskingBackfill,
  runMaskingBackfillStep,
  startMaskingBackfill,
} from "./mask-backfill";
