CREATE TABLE "catalog_entries" (
	"template_id" uuid PRIMARY KEY NOT NULL,
	"category_id" uuid NOT NULL,
	"org_id" uuid,
	"is_public" boolean NOT NULL,
	"is_featured" boolean NOT NULL,
	"featured_rank" smallint NOT NULL,
	"name" text NOT NULL,
	"search_name" text NOT NULL,
	"search_description" text NOT NULL,
	"tags" text[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "category_template_counts" (
	"category_id" uuid NOT NULL,
	"org_id" uuid,
	"is_public" boolean NOT NULL,
	"is_featured" boolean NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "category_template_counts_key" UNIQUE NULLS NOT DISTINCT("category_id","org_id","is_public","is_featured")
);
--> statement-breakpoint
DROP INDEX "templates_tags_idx";--> statement-breakpoint
DROP INDEX "templates_name_trgm_idx";--> statement-breakpoint
DROP INDEX "templates_description_trgm_idx";--> statement-breakpoint
DROP INDEX "templates_list_order_idx";--> statement-breakpoint
ALTER TABLE "category_template_counts" ADD CONSTRAINT "category_template_counts_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."categories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "catalog_entries_order_idx" ON "catalog_entries" USING btree ("featured_rank","name","template_id","category_id","org_id","is_public");--> statement-breakpoint
CREATE INDEX "catalog_entries_category_order_idx" ON "catalog_entries" USING btree ("category_id","featured_rank","name","template_id","org_id","is_public");--> statement-breakpoint
CREATE INDEX "catalog_entries_tags_idx" ON "catalog_entries" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "catalog_entries_name_trgm_idx" ON "catalog_entries" USING gin ("search_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "catalog_entries_description_trgm_idx" ON "catalog_entries" USING gin ("search_description" gin_trgm_ops);--> statement-breakpoint
-- Hand-written below: the read model and the counts are derived from templates by statement triggers, in
-- the writing statement's own transaction (bulk inserts cost one pass, not one trigger call per row).
CREATE FUNCTION "catalog_templates_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_entries (template_id, category_id, org_id, is_public, is_featured, featured_rank, name, search_name, search_description, tags)
    SELECT id, category_id, org_id, is_public, is_featured, CASE WHEN is_featured THEN 0 ELSE 1 END, name, lower(name), lower(description), tags FROM new_rows;
  INSERT INTO category_template_counts AS k (category_id, org_id, is_public, is_featured, n)
    SELECT category_id, org_id, is_public, is_featured, count(*) FROM new_rows GROUP BY 1, 2, 3, 4
    ON CONFLICT ON CONSTRAINT category_template_counts_key DO UPDATE SET n = k.n + excluded.n;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "catalog_templates_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM catalog_entries e USING old_rows o WHERE e.template_id = o.id;
  UPDATE category_template_counts k SET n = k.n - d.n
    FROM (SELECT category_id, org_id, is_public, is_featured, count(*) AS n FROM old_rows GROUP BY 1, 2, 3, 4) d
   WHERE k.category_id = d.category_id AND k.org_id IS NOT DISTINCT FROM d.org_id
     AND k.is_public = d.is_public AND k.is_featured = d.is_featured;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "catalog_templates_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_entries e
     SET category_id = n.category_id, org_id = n.org_id, is_public = n.is_public, is_featured = n.is_featured,
         featured_rank = CASE WHEN n.is_featured THEN 0 ELSE 1 END,
         name = n.name, search_name = lower(n.name), search_description = lower(n.description), tags = n.tags
    FROM new_rows n
   WHERE e.template_id = n.id
     AND (e.category_id, e.org_id, e.is_public, e.is_featured, e.name, e.search_description, e.tags)
         IS DISTINCT FROM (n.category_id, n.org_id, n.is_public, n.is_featured, n.name, lower(n.description), n.tags);
  INSERT INTO category_template_counts AS k (category_id, org_id, is_public, is_featured, n)
    SELECT category_id, org_id, is_public, is_featured, sum(n) FROM (
      SELECT category_id, org_id, is_public, is_featured, -1 AS n FROM old_rows
      UNION ALL
      SELECT category_id, org_id, is_public, is_featured, 1 AS n FROM new_rows) d
     GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
    ON CONFLICT ON CONSTRAINT category_template_counts_key DO UPDATE SET n = k.n + excluded.n;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "catalog_templates_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM catalog_entries;
  DELETE FROM category_template_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "catalog_templates_insert" AFTER INSERT ON "templates" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_templates_inserted();--> statement-breakpoint
CREATE TRIGGER "catalog_templates_delete" AFTER DELETE ON "templates" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_templates_deleted();--> statement-breakpoint
CREATE TRIGGER "catalog_templates_update" AFTER UPDATE ON "templates" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_templates_updated();--> statement-breakpoint
CREATE TRIGGER "catalog_templates_truncate" AFTER TRUNCATE ON "templates"
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_templates_truncated();--> statement-breakpoint
INSERT INTO catalog_entries (template_id, category_id, org_id, is_public, is_featured, featured_rank, name, search_name, search_description, tags)
  SELECT id, category_id, org_id, is_public, is_featured, CASE WHEN is_featured THEN 0 ELSE 1 END, name, lower(name), lower(description), tags FROM templates;--> statement-breakpoint
INSERT INTO category_template_counts (category_id, org_id, is_public, is_featured, n)
  SELECT category_id, org_id, is_public, is_featured, count(*) FROM templates GROUP BY 1, 2, 3, 4;
