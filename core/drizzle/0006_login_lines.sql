CREATE TABLE "login_lines" (
	"username" text PRIMARY KEY NOT NULL,
	"slots" bigint[] NOT NULL,
	"tail" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "login_lines_tail_idx" ON "login_lines" USING btree ("tail");