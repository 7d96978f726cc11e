CREATE TABLE "deployment_secret_bindings" (
	"deployment_id" uuid NOT NULL,
	"variable" text NOT NULL,
	"secret_name" text NOT NULL,
	CONSTRAINT "deployment_secret_bindings_deployment_id_variable_pk" PRIMARY KEY("deployment_id","variable")
);
--> statement-breakpoint
CREATE TABLE "hub_assertion_jtis" (
	"jti" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_blocked_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"email" text NOT NULL,
	"blocked_by" text NOT NULL,
	"blocked_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deployment_secret_bindings" ADD CONSTRAINT "deployment_secret_bindings_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_secret_bindings" ADD CONSTRAINT "deployment_secret_bindings_secret_name_secrets_name_fk" FOREIGN KEY ("secret_name") REFERENCES "public"."secrets"("name") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deployment_secret_bindings_secret_idx" ON "deployment_secret_bindings" USING btree ("secret_name");--> statement-breakpoint
CREATE INDEX "hub_assertion_jtis_expires_idx" ON "hub_assertion_jtis" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_blocked_identities_identity_idx" ON "oidc_blocked_identities" USING btree ("issuer","subject");