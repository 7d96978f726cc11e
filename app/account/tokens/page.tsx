import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { config } from '@/server/config';
import { ButtonLink, PageHeader } from '../../_components/ui';
import { ConnectGuide } from './connect-guide';
import { TokensView } from './tokens-view';

export const metadata: Metadata = { title: 'Personal access tokens' };
export const dynamic = 'force-dynamic';

export default async function TokensPage() {
  await requireUser('/account/tokens');
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
      <TokensView mcpUrl={mcpUrl} />
      <ConnectGuide mcpUrl={mcpUrl} />
    </div>
  );
}
