ALTER TABLE "dns_records" ADD COLUMN "publish_next_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dns_records" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dns_records" ADD COLUMN "deleted_at" timestamp with time zone;