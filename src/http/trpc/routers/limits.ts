import { router } from "../init";
import { limitsProcedures } from "../../verbs/limits";
import { webhooksProcedures } from "../../verbs/webhooks";

export const limitsRouter = router(limitsProcedures);

export const webhooksRouter = router(webhooksProcedures);
