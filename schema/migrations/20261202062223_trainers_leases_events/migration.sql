CREATE TABLE "trainers" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"key_id" text,
	"name" text NOT NULL,
	"host" text NOT NULL,
	"gpus" jsonb DEFAULT '[]' NOT NULL,
	"versions" jsonb DEFAULT '{}' NOT NULL,
	"current_model_id" text,
	"last_seen_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "training_events" (
	"model_id" text NOT NULL,
	"step" integer NOT NULL,
	"total_steps" integer NOT NULL,
	"loss" double precision,
	"eval_loss" double precision,
	"learning_rate" double precision,
	"tokens_per_second" double precision,
	"eta_seconds" double precision,
	"gpu_memory_bytes" bigint,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "lease_id" text;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "leased_by" text;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "cancel_requested" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "resume_from" jsonb;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "result_files" jsonb;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "dropped_entries" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX "trainers_project_id_name_index" ON "trainers" ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "training_events_model_id_step_index" ON "training_events" ("model_id","step");--> statement-breakpoint
ALTER TABLE "trainers" ADD CONSTRAINT "trainers_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "trainers" ADD CONSTRAINT "trainers_key_id_api_keys_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE "training_events" ADD CONSTRAINT "training_events_model_id_models_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE;