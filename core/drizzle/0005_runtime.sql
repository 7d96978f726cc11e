CREATE TABLE "deployment_observations" (
	"deployment_id" uuid PRIMARY KEY NOT NULL,
	"observed" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "desired_state" text DEFAULT 'running' NOT NULL;--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "template_snapshot" jsonb;--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "host_ports" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "deployment_observations" ADD CONSTRAINT "deployment_observations_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Deployments recorded before Core ran containers deploy the template as it is in the catalog now.
UPDATE "deployments" SET "template_snapshot" = c."data" FROM "catalog_templates" c WHERE c."id" = "deployments"."template_id";
