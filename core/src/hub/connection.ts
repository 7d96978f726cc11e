/**
 * The Hub connection: which Hub, which instance key (environment first, then settings), what the Hub
 * said about the key (instance id = the audience of its MCP assertions, organization), and the
 * instance's registration (instance-info, dynamic DNS). The key is checked against the Hub before it
 * is stored, sealed under the master secret, and never returned: answers show the Hub's key prefix.
 */
import { eq } from 'drizzle-orm';
import { createRemoteJWKSet } from 'jose';
import type { CoreConfig } from '../config';
import type { Db } from '../db/client';
import { hubConnection } from '../db/schema';
import { clearCatalog, countTemplates } from '../domain/catalog';
import { sealedFields, type Sealer } from '../domain/crypto';
import { ServiceError } from '../domain/errors';
import type { Logger } from '../log';
import { createHubClient, HubError, type HubClient, type HubInstanceInfo } from './client';
import { changed, recordActivity, type Actor } from '../domain/activity';

const DNS_EVERY_MS = 10 * 60_000;

export type ConnectionRow = typeof hubConnection.$inferSelect;

/** What the activity log shows of the connection (never the key). */
const described = (r: ConnectionRow) => ({
  hub_url: r.hubUrl,
  key_prefix: r.keyPrefix,
  instance_id: r.instanceId,
  organization: r.organization?.slug ?? null,
});

export interface HubCredentials {
  source: 'environment' | 'settings';
  url: string;
  key: string;
  client: HubClient;
  row: ConnectionRow;
}

export class HubConnection {
  private jwks = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  private lastDnsAt = 0;

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly config: CoreConfig,
    private readonly log: Logger,
  ) {}

  /** This instance's MCP endpoint: what it reports to the Hub, and the destination the Hub's assertions must name. */
  get mcpUrl(): string {
    return `${this.config.url}/mcp`;
  }

  async row(): Promise<ConnectionRow | undefined> {
    const [row] = await this.db.select().from(hubConnection).where(eq(hubConnection.id, 'hub'));
    return row;
  }

  /** The connection in force, or null when none is configured. */
  async credentials(): Promise<HubCredentials | null> {
    const env = this.config.hub;
    let row = await this.row();
    if (env) {
      // The environment wins; its row holds only state. A different Hub URL starts over.
      if (!row || row.hubUrl !== env.url || row.sealedKey !== null) row = await this.store(env.url, null, null);
      return {
        source: 'environment',
        url: env.url,
        key: env.instanceKey,
        client: createHubClient(env.url, env.instanceKey),
        row,
      };
    }
    if (!row?.sealedKey) return null;
    const key = this.sealer.open(sealedFields.hubInstanceKey(row.id), row.sealedKey);
    return { source: 'settings', url: row.hubUrl, key, client: createHubClient(row.hubUrl, key), row };
  }

  /** PUT /settings/hub: checks the key with the Hub first; a refusal stores nothing. */
  async connect(hubUrl: string, key: string, actor: Actor): Promise<void> {
    if (this.config.hub)
      throw new ServiceError(
        'conflict',
        'the Hub connection is set by CORE_HUB_URL and CORE_HUB_INSTANCE_KEY in the environment; change it there',
      );
    const url = hubUrl.replace(/\/+$/, '');
    const client = createHubClient(url, key);
    let info: HubInstanceInfo;
    try {
      info = await client.instanceInfo();
    } catch (err) {
      if (!(err instanceof HubError)) throw err;
      if (err.fault === 'key_refused')
        throw new ServiceError(
          'invalid',
          `instance_key: the Hub at ${url} refused this instance key (401); nothing was stored`,
        );
      if (err.fault === 'rejected') throw new ServiceError('invalid', `hub_url: ${err.message}; nothing was stored`);
      throw new ServiceError('bad_gateway', `${err.message}; nothing was stored`);
    }
    await this.store(url, this.sealer.seal(sealedFields.hubInstanceKey('hub'), key), info, actor);
    this.log.info(
      { hub_url: url, instance_id: info.instance.id, organization: info.instance.organization.slug },
      'hub connected',
    );
  }

  async disconnect(actor: Actor): Promise<void> {
    if (this.config.hub)
      throw new ServiceError(
        'conflict',
        'the Hub connection is set by CORE_HUB_URL and CORE_HUB_INSTANCE_KEY in the environment; remove it there',
      );
    await this.db.transaction(async (tx) => {
      const gone = await tx.delete(hubConnection).where(eq(hubConnection.id, 'hub')).returning();
      if (gone[0])
        await recordActivity(tx, actor, {
          action: 'hub.disconnect',
          target: { type: 'hub', id: 'hub', name: gone[0].hubUrl },
          before: described(gone[0]),
        });
      await clearCatalog(tx);
    });
    this.log.info('hub disconnected');
  }

  /**
   * Writes the connection. Another Hub or another key (instance id) sees another catalog: the copy and the
   * watermark start over. connected_at changes every time, so a sync in flight never applies its answer.
   */
  private async store(
    url: string,
    sealedKey: string | null,
    info: HubInstanceInfo | null,
    actor?: Actor,
  ): Promise<ConnectionRow> {
    return this.db.transaction(async (tx) => {
      const [old] = await tx.select().from(hubConnection).where(eq(hubConnection.id, 'hub')).for('update');
      const sameCatalog = old && old.hubUrl === url && info && old.instanceId === info.instance.id;
      if (!sameCatalog) await clearCatalog(tx);
      const values = {
        hubUrl: url,
        sealedKey,
        keyPrefix: info?.instance.key_prefix ?? (this.config.hub ? this.config.hub.instanceKey.slice(0, 12) : ''),
        instanceId: info?.instance.id ?? null,
        organization: info ? pick(info.instance.organization) : null,
        connectedAt: new Date(),
        checkedAt: sameCatalog ? old.checkedAt : null,
        etag: sameCatalog ? old.etag : null,
        lastSyncAt: sameCatalog ? old.lastSyncAt : null,
        lastError: null,
        lastErrorAt: null,
        keyRefused: false,
      };
      const [row] = await tx
        .insert(hubConnection)
        .values({ id: 'hub', ...values })
        .onConflictDoUpdate({ target: hubConnection.id, set: values })
        .returning();
      // A person's change is recorded (never the key: its prefix only); the Hub re-stating the instance is not a write by anyone.
      if (actor) {
        if (old) {
          const diff = changed(described(old), described(row!));
          if (sealedKey !== old.sealedKey) {
            diff.before.instance_key = old.keyPrefix;
            diff.after.instance_key = `${row!.keyPrefix} (replaced)`;
          }
          await recordActivity(tx, actor, {
            action: 'hub.connect',
            target: { type: 'hub', id: 'hub', name: url },
            ...diff,
          });
        } else {
          await recordActivity(tx, actor, {
            action: 'hub.connect',
            target: { type: 'hub', id: 'hub', name: url },
            after: described(row!),
          });
        }
      }
      return row!;
    });
  }

  /** What the Hub says about the key, kept for the MCP audience and the settings page. */
  async recordInstanceInfo(row: ConnectionRow, info: HubInstanceInfo) {
    const instanceId = info.instance.id;
    if (row.instanceId !== null && row.instanceId !== instanceId) {
      // The key now names another instance at the Hub: its catalog is another one.
      await this.store(row.hubUrl, row.sealedKey, info);
      return;
    }
    await this.db
      .update(hubConnection)
      .set({ instanceId, organization: pick(info.instance.organization), keyPrefix: info.instance.key_prefix })
      .where(eq(hubConnection.id, 'hub'));
  }

  /** At start: a connection from the environment gets a fresh chance (the operator may have put a new key there). */
  async forgetEnvironmentRefusal() {
    if (this.config.hub)
      await this.db.update(hubConnection).set({ keyRefused: false }).where(eq(hubConnection.id, 'hub'));
  }

  async recordError(message: string, keyRefused = false) {
    await this.db
      .update(hubConnection)
      .set({ lastError: message, lastErrorAt: new Date(), ...(keyRefused ? { keyRefused: true } : {}) })
      .where(eq(hubConnection.id, 'hub'));
  }

  /** Tells the Hub where this instance and its MCP server are (on connect and at every start), and keeps DNS current. */
  async register(creds: HubCredentials): Promise<void> {
    const info = await creds.client.reportInstance({
      version: this.config.version,
      base_url: this.config.url,
      mcp_url: this.mcpUrl,
    });
    await this.recordInstanceInfo(creds.row, info);
    this.log.info(
      { hub_url: creds.url, instance_id: info.instance.id, mcp_url: this.mcpUrl },
      'registered with the hub',
    );
    await this.updateDns(creds, true);
  }

  /** With CORE_HUB_DNS=true: PUT /dns (the Hub takes the request's source address) at most every 10 minutes. */
  async updateDns(creds: HubCredentials, force = false): Promise<void> {
    if (!this.config.hubDns || (!force && Date.now() - this.lastDnsAt < DNS_EVERY_MS)) return;
    this.lastDnsAt = Date.now();
    try {
      const answer = await creds.client.putDns();
      this.log.info({ hostname: answer?.record.hostname, ip: answer?.record.ip }, 'dynamic DNS record updated');
    } catch (err) {
      this.log.warn({ error: err instanceof Error ? err.message : String(err) }, 'dynamic DNS update failed');
    }
  }

  /** The Hub's signing keys (jose caches them and refetches on an unknown kid, at most every 30 s). */
  jwksFor(hubUrl: string) {
    let set = this.jwks.get(hubUrl);
    if (!set) {
      set = createRemoteJWKSet(new URL(`${hubUrl}/.well-known/jwks.json`), {
        timeoutDuration: 5_000,
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
      });
      this.jwks.set(hubUrl, set);
    }
    return set;
  }

  /** GET /settings/hub. */
  async status() {
    const env = this.config.hub;
    const row = await this.row();
    const stored = env ? (row?.hubUrl === env.url ? row : undefined) : row?.sealedKey ? row : undefined;
    if (!env && !stored) return { configured: false as const };
    return {
      configured: true as const,
      source: env ? ('environment' as const) : ('settings' as const),
      hub_url: env?.url ?? stored!.hubUrl,
      key_prefix: stored?.keyPrefix || (env ? env.instanceKey.slice(0, 12) : ''),
      instance_id: stored?.instanceId ?? null,
      organization: stored?.organization ?? null,
      connected: !!stored && stored.instanceId !== null && !stored.keyRefused && stored.lastError === null,
      key_refused: stored?.keyRefused ?? false,
      last_sync_at: stored?.lastSyncAt?.toISOString() ?? null,
      checked_at: stored?.checkedAt ?? null,
      last_error: stored?.lastError ?? null,
      last_error_at: stored?.lastErrorAt?.toISOString() ?? null,
      template_count: await countTemplates(this.db),
    };
  }
}

const pick = (o: { id: string; name: string; slug: string }) => ({ id: o.id, name: o.name, slug: o.slug });
