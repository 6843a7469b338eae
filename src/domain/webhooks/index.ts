export { alertExpiringKeys, deleteOldCounters, deliverWebhook, failWebhookDelivery, raiseAlert, signatureOf, WEBHOOK_JOB } from "./deliver";
export { deleteWebhook, getWebhook, listWebhookDeliveries, setWebhook, testWebhook } from "./manage-webhook";
export * from "./schemas";
export { alertOnSpend } from "./deliver";
