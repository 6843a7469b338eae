CREATE TABLE "monitor_seen" (
	"monitor_id" text NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "seen" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "monitor_seen_monitor_id_index" ON "monitor_seen" ("monitor_id");--> statement-breakpoint
ALTER TABLE "monitor_seen" ADD CONSTRAINT "monitor_seen_monitor_id_monitors_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE;