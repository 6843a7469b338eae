ALTER TABLE "provider_keys" ADD COLUMN "name" text DEFAULT 'default';--> statement-breakpoint
ALTER TABLE "provider_keys" ADD COLUMN "weight" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "provider_keys" DROP CONSTRAINT "provider_keys_pkey";--> statement-breakpoint
ALTER TABLE "provider_keys" ADD PRIMARY KEY ("project_id","provider","name");