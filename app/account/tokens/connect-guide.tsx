'use client';
import { CopyButton } from '../../_components/dialog';
import { Card } from '../../_components/ui';

const PLACEHOLDER = 'svp_…';

/** The exact client configuration for the common MCP clients, for this Hub's /mcp and a token. */
export function clientConfigs(mcpUrl: string, token = PLACEHOLDER) {
  return [
    {
      id: 'claude-code',
      title: 'Claude Code',
      where: 'Run in a terminal:',
      text: `claude mcp add --transport http core ${mcpUrl} --header "Authorization: Bearer ${token}"`,
    },
    {
      id: 'claude-desktop',
      title: 'Claude Desktop',
      where:
        'claude_desktop_config.json (Settings → Developer → Edit config), then restart Claude Desktop. It runs ' +
        'local servers only, so mcp-remote (Node.js) bridges to the Hub:',
      text: JSON.stringify(
        {
          mcpServers: {
            core: {
              command: 'npx',
              args: [
                '-y',
                'mcp-remote@latest',
                mcpUrl,
                '--header',
                'Authorization:${AUTH_HEADER}',
                ...(mcpUrl.startsWith('http://') ? ['--allow-http'] : []),
              ],
              env: { AUTH_HEADER: `Bearer ${token}` },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'vscode',
      title: 'VS Code',
      where: '.vscode/mcp.json (VS Code asks for the token when it starts the server):',
      text: JSON.stringify(
        {
          servers: { core: { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer ${input:hub-token}' } } },
          inputs: [{ type: 'promptString', id: 'hub-token', description: 'Hub personal access token', password: true }],
        },
        null,
        2,
      ),
    },
    {
      id: 'cursor',
      title: 'Cursor',
      where: '~/.cursor/mcp.json:',
      text: JSON.stringify(
        { mcpServers: { core: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } },
        null,
        2,
      ),
    },
  ];
}

export function ConfigBlock({ title, where, text }: { title: string; where: string; text: string }) {
  return (
    <div className="space-y-1">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{title}</h3>
        <CopyButton value={text} what={`${title} configuration`} />
      </div>
      <p className="text-xs text-zinc-600">{where}</p>
      {/* Wrapped, not scrolled: no sideways scrolling on a phone, nothing a keyboard user cannot reach. */}
      <pre className="whitespace-pre-wrap break-all rounded-lg bg-zinc-900 p-3 font-mono text-xs text-zinc-100">
        {text}
      </pre>
    </div>
  );
}

export function ConnectGuide({ mcpUrl }: { mcpUrl: string }) {
  return (
    <Card
      title="Connect your AI assistant"
      description="Any MCP client that speaks Streamable HTTP and can send an Authorization header works with the Hub."
    >
      <ol className="mb-4 list-decimal space-y-1 pl-5 text-sm text-zinc-800">
        <li>Mint a token above for the instance the assistant should work with, and copy it.</li>
        <li>
          Point the client at <code className="rounded bg-zinc-100 px-1 font-mono text-xs">{mcpUrl}</code> with the
          header <code className="rounded bg-zinc-100 px-1 font-mono text-xs">Authorization: Bearer svp_…</code>, as
          below.
        </li>
        <li>
          The instance sees you (your email and organization) and applies your roles there. The token stops working when
          it expires, is revoked, or when you leave the organization.
        </li>
      </ol>
      <div className="grid gap-4 lg:grid-cols-2">
        {clientConfigs(mcpUrl).map((c) => (
          <ConfigBlock key={c.id} title={c.title} where={c.where} text={c.text} />
        ))}
      </div>
    </Card>
  );
}
