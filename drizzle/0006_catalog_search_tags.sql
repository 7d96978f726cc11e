ALTER TABLE "catalog_entries" ADD COLUMN "search_tags" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Hand-written below. Tags match case-insensitively (tag filter and search): the read model keeps them
-- lower-cased, folded on write by the triggers of 0002 (templates keep the tags as written, which is what
-- answers show), and as one text for the trigram index (search_tags: every tag between unit separators).
CREATE FUNCTION "catalog_fold_tags"(tags text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(lower(t) ORDER BY o), '{}'::text[]) FROM unnest(tags) WITH ORDINALITY AS u(t, o)
$$;--> statement-breakpoint
CREATE FUNCTION "catalog_search_tags"(tags text[]) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT E'\x1f' || coalesce(string_agg(lower(t), E'\x1f' ORDER BY o), '') || E'\x1f' FROM unnest(tags) WITH ORDINALITY AS u(t, o)
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "catalog_templates_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_entries (template_id, category_id, org_id, is_public, is_featured, featured_rank, name, search_name, search_description, tags, search_tags)
    SELECT id, category_id, org_id, is_public, is_featured, CASE WHEN is_featured THEN 0 ELSE 1 END, name, lower(name), lower(description),
           catalog_fold_tags(tags), catalog_search_tags(tags) FROM new_rows;
  INSERT INTO category_template_counts AS k (category_id, org_id, is_public, is_featured, n)
    SELECT category_id, org_id, is_public, is_featured, count(*) FROM new_rows GROUP BY 1, 2, 3, 4
    ON CONFLICT ON CONSTRAINT category_template_counts_key DO UPDATE SET n = k.n + excluded.n;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "catalog_templates_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_entries e
     SET category_id = n.category_id, org_id = n.org_id, is_public = n.is_public, is_featured = n.is_featured,
         featured_rank = CASE WHEN n.is_featured THEN 0 ELSE 1 END,
         name = n.name, search_name = lower(n.name), search_description = lower(n.description),
         tags = catalog_fold_tags(n.tags), search_tags = catalog_search_tags(n.tags)
    FROM new_rows n
   WHERE e.template_id = n.id
     AND (e.category_id, e.org_id, e.is_public, e.is_featured, e.name, e.search_description, e.tags)
         IS DISTINCT FROM (n.category_id, n.org_id, n.is_public, n.is_featured, n.name, lower(n.description), catalog_fold_tags(n.tags));
  INSERT INTO category_template_counts AS k (category_id, org_id, is_public, is_featured, n)
    SELECT category_id, org_id, is_public, is_featured, sum(n) FROM (
      SELECT category_id, org_id, is_public, is_featured, -1 AS n FROM old_rows
      UNION ALL
      SELECT category_id, org_id, is_public, is_featured, 1 AS n FROM new_rows) d
     GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
    ON CONFLICT ON CONSTRAINT category_template_counts_key DO UPDATE SET n = k.n + excluded.n;
  RETURN NULL;
END $$;--> statement-breakpoint
UPDATE catalog_entries SET tags = catalog_fold_tags(tags), search_tags = catalog_search_tags(tags);--> statement-breakpoint

CREATE INDEX "catalog_entries_tags_trgm_idx" ON "catalog_entries" USING gin ("search_tags" gin_trgm_ops);
