CREATE TABLE "catalog_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category_slug" text NOT NULL,
	"data" jsonb NOT NULL,
	"updated_at" text NOT NULL,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"template_id" uuid NOT NULL,
	"template_slug" text NOT NULL,
	"template_version" text NOT NULL,
	"env" jsonb NOT NULL,
	"secret_refs" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hub_connection" (
	"id" text PRIMARY KEY DEFAULT 'hub' NOT NULL,
	"hub_url" text NOT NULL,
	"sealed_key" text,
	"key_prefix" text NOT NULL,
	"instance_id" uuid,
	"organization" jsonb,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"checked_at" text,
	"etag" text,
	"last_sync_at" timestamp with time zone,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"key_refused" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_tool_calls" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"via" text NOT NULL,
	"actor" text NOT NULL,
	"user_id" uuid,
	"token_id" text,
	"tool" text NOT NULL,
	"outcome" text NOT NULL,
	"message" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "catalog_templates_slug_idx" ON "catalog_templates" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "catalog_templates_category_idx" ON "catalog_templates" USING btree ("category_slug");--> statement-breakpoint
CREATE UNIQUE INDEX "deployments_name_idx" ON "deployments" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "deployments_template_idx" ON "deployments" USING btree ("template_id");--> statement-breakpoint
CREATE INDEX "mcp_tool_calls_at_idx" ON "mcp_tool_calls" USING btree ("at");