CREATE TABLE "activity" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor" text NOT NULL,
	"via" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"target_name" text NOT NULL,
	"before" jsonb,
	"after" jsonb
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"class" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "usage_daily_kind_day_key_class_pk" PRIMARY KEY("kind","day","key","class")
);
--> statement-breakpoint
CREATE INDEX "activity_at_idx" ON "activity" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "activity_target_idx" ON "activity" USING btree ("target_type","target_id","at");--> statement-breakpoint
CREATE INDEX "activity_actor_idx" ON "activity" USING btree ("actor_id","at");--> statement-breakpoint
CREATE INDEX "activity_action_idx" ON "activity" USING btree ("action","at");