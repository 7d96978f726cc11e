import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
const db = await PGlite.create(undefined, { extensions: { pg_trgm }, loadDataDir: new Blob([fs.readFileSync(process.argv[2])]) });
const RESET = `
do $$
declare t regclass; s regclass;
begin
  set local session_replication_role = replica;
  for t in select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where c.relkind in ('r','p') and n.nspname = 'public' loop
    execute format('delete from %s', t);
  end loop;
  for s in select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'S' and n.nspname = 'public' loop
    perform setval(s, 1, false);
  end loop;
end $$`;
const FP = `select md5(string_agg(d, E'\\n' order by d)) as fp from (
  select concat_ws(' ', 'c', c.oid::regclass, c.relkind, c.relnatts) from pg_class c join pg_namespace n on n.oid=c.relnamespace where n.nspname not in ('pg_catalog','information_schema','pg_toast')
  union all select concat_ws(' ', 'a', a.attrelid::regclass, a.attname, a.atttypid, a.attnotnull, a.atthasdef) from pg_attribute a join pg_class c on c.oid=a.attrelid join pg_namespace n on n.oid=c.relnamespace where n.nspname not in ('pg_catalog','information_schema','pg_toast') and a.attnum>0 and not a.attisdropped
  union all select concat_ws(' ', 't', tgrelid::regclass, tgname, tgenabled) from pg_trigger where not tgisinternal
  union all select concat_ws(' ', 'p', p.oid::regprocedure, md5(p.prosrc)) from pg_proc p join pg_namespace n on n.oid=p.pronamespace where n.nspname not in ('pg_catalog','information_schema')
  union all select concat_ws(' ', 'r', rolname, rolsuper) from pg_roles
  union all select concat_ws(' ', 'e', extname, extversion) from pg_extension
) s(d)`;
for (let i = 0; i < 3; i++) {
  await db.exec(`insert into categories (slug, name) select 'c'||g, 'C'||g from generate_series(1,50) g`);
  let t = performance.now();
  await db.exec(RESET);
  console.log('reset ms', (performance.now() - t).toFixed(1));
  t = performance.now();
  const fp = (await db.query(FP)).rows[0].fp;
  console.log('fp ms', (performance.now() - t).toFixed(1), fp);
  t = performance.now();
  await db.exec('discard all');
  console.log('discard ms', (performance.now() - t).toFixed(1));
}
console.log((await db.query('select count(*) from categories')).rows, (await db.query("show session_replication_role")).rows);
await db.close();
