import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { config } from '@/server/config';
import { serverTrpc } from '../../_lib/server-trpc';
import { ButtonLink, PageHeader } from '../../_components/ui';
import { ConnectGuide } from './connect-guide';
import { TokensView } from './tokens-view';

export const metadata: Metadata = { title: 'Personal access tokens' };
export const dynamic = 'force-dynamic';

export default async function TokensPage() {
  const { user } = await requireUser('/account/tokens');
  // Server-rendered first data, hydrated into the browser's query cache (see app/_lib/server-trpc.tsx).
  const { trpc, HydrateClient } = await serverTrpc();
  await Promise.all([
    trpc.account.getProfile.prefetch({}),
    trpc.tokens.list.prefetch({}),
    ...(user.orgId ? [trpc.account.listApiKeys.prefetch({})] : []),
  ]);
  const mcpUrl = `${config.hubUrl}/mcp`;
  return (
    <div className="space-y-4">
      <PageHeader
        title="Personal access tokens"
        description="Tokens (svp_…) that let an AI assistant reach one Core instance of your organization, as you, through the Hub's MCP endpoint."
        actions={
          <ButtonLink href="/account" variant="secondary">
            Back to account
          </ButtonLink>
        }
      />
      <HydrateClient>
        <TokensView mcpUrl={mcpUrl} />
      </HydrateClient>
      <ConnectGuide mcpUrl={mcpUrl} />
    </div>
  );
}
