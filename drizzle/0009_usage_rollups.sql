CREATE TABLE "instance_sync_state" (
	"instance_key_id" uuid PRIMARY KEY NOT NULL,
	"last_poll_at" timestamp with time zone,
	"last_sync_at" timestamp with time zone,
	"last_checked_at" text,
	"poll_interval_s" integer
);
--> statement-breakpoint
CREATE TABLE "instance_usage_daily" (
	"day" date NOT NULL,
	"instance_key_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"downloads" integer DEFAULT 0 NOT NULL,
	"polls" integer DEFAULT 0 NOT NULL,
	"not_modified" integer DEFAULT 0 NOT NULL,
	"full_syncs" integer DEFAULT 0 NOT NULL,
	"mcp_ok" integer DEFAULT 0 NOT NULL,
	"mcp_refused_hub" integer DEFAULT 0 NOT NULL,
	"mcp_refused_instance" integer DEFAULT 0 NOT NULL,
	"mcp_upstream_error" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "instance_usage_daily_day_instance_key_id_pk" PRIMARY KEY("day","instance_key_id")
);
--> statement-breakpoint
CREATE TABLE "template_downloads_daily" (
	"day" date NOT NULL,
	"template_id" uuid NOT NULL,
	"downloads" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "template_downloads_daily_day_template_id_pk" PRIMARY KEY("day","template_id")
);
--> statement-breakpoint
CREATE TABLE "tickets_daily" (
	"day" date NOT NULL,
	"org_id" uuid NOT NULL,
	"opened" integer DEFAULT 0 NOT NULL,
	"closed" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "tickets_daily_day_org_id_pk" PRIMARY KEY("day","org_id")
);
--> statement-breakpoint
ALTER TABLE "mcp_calls" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "instance_sync_state" ADD CONSTRAINT "instance_sync_state_instance_key_id_instance_keys_id_fk" FOREIGN KEY ("instance_key_id") REFERENCES "public"."instance_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instance_usage_daily" ADD CONSTRAINT "instance_usage_daily_instance_key_id_instance_keys_id_fk" FOREIGN KEY ("instance_key_id") REFERENCES "public"."instance_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "template_downloads_daily" ADD CONSTRAINT "template_downloads_daily_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets_daily" ADD CONSTRAINT "tickets_daily_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "instance_usage_daily_org_idx" ON "instance_usage_daily" USING btree ("org_id","day");--> statement-breakpoint
CREATE INDEX "template_downloads_daily_template_idx" ON "template_downloads_daily" USING btree ("template_id");