import type { Deps } from "../domain/deps";
import { deliverWebhook, failWebhookDelivery, WEBHOOK_JOB } from "../domain/webhooks";
import type { JobHandler } from "./worker";

/** Posts one alert to the project's webhook; a failure is retried with the queue's backoff. */
export const webhookJob: Record<string, JobHandler> = {
  [WEBHOOK_JOB]: {
    async run(deps: Deps, payload: unknown, _job, signal) {
      await deliverWebhook(deps, payload, signal);
      return { done: true };
    },
    failed: (deps, payload, reason) => failWebhookDelivery(deps, payload, reason),
  },
};
