CREATE TABLE "adapter_servings" (
	"provider_id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"key_id" text,
	"host" text,
	"vllm_url" text NOT NULL,
	"loaded" jsonb DEFAULT '[]' NOT NULL,
	"error" text,
	"reported_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "custom_providers" ADD COLUMN "base_model" text;--> statement-breakpoint
ALTER TABLE "adapter_servings" ADD CONSTRAINT "adapter_servings_provider_id_custom_providers_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "custom_providers"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "adapter_servings" ADD CONSTRAINT "adapter_servings_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "adapter_servings" ADD CONSTRAINT "adapter_servings_key_id_api_keys_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL;