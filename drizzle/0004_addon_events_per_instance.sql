-- Addon event ids are unique per instance, not globally (issue 13).
ALTER TABLE "addon_audit_events" DROP CONSTRAINT "addon_audit_events_instance_key_id_instance_keys_id_fk";--> statement-breakpoint
ALTER TABLE "addon_audit_events" DROP CONSTRAINT "addon_audit_events_pkey";--> statement-breakpoint
ALTER TABLE "addon_audit_events" ALTER COLUMN "instance_key_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "addon_audit_events" ADD CONSTRAINT "addon_audit_events_pkey" PRIMARY KEY("instance_key_id","id");--> statement-breakpoint
ALTER TABLE "addon_audit_events" ADD CONSTRAINT "addon_audit_events_instance_key_id_instance_keys_id_fk" FOREIGN KEY ("instance_key_id") REFERENCES "public"."instance_keys"("id") ON DELETE cascade ON UPDATE no action;
