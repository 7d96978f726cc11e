CREATE TABLE "support_usage" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"tickets" integer DEFAULT 0 NOT NULL,
	"ticket_messages" integer DEFAULT 0 NOT NULL,
	"addon_events" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "support_usage" ADD CONSTRAINT "support_usage_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- What is stored today, counted once.
INSERT INTO "support_usage" ("org_id", "tickets", "ticket_messages", "addon_events")
SELECT o."id",
       (SELECT count(*) FROM "support_tickets" t WHERE t."org_id" = o."id"),
       (SELECT count(*) FROM "support_messages" m JOIN "support_tickets" t ON t."id" = m."ticket_id" WHERE t."org_id" = o."id" AND m."author_type" <> 'staff'),
       (SELECT count(*) FROM "addon_audit_events" e WHERE e."org_id" = o."id")
  FROM "organizations" o;
