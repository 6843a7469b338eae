DROP INDEX "usage_hourly_project_id_hour_index";--> statement-breakpoint
DROP INDEX "usage_hourly_tags_project_id_hour_index";--> statement-breakpoint
CREATE INDEX "usage_hourly_project_hour_model" ON "usage_hourly" ("project_id","hour",coalesce("model", ''));--> statement-breakpoint
CREATE INDEX "usage_hourly_tags_project_hour_tag" ON "usage_hourly_tags" ("project_id","hour",coalesce("tag", ''));