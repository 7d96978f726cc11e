/** The template page's "Deploy on a Core instance" commands, with the caller's own instance URLs when the Hub knows them. */

export interface KnownInstance {
  name: string;
  baseUrl: string;
}

const PLACEHOLDER = 'https://core.example.com';

/** Core's API base for a reported base URL (trailing slashes dropped), quoted for the shell: an instance reports it. */
function apiBase(baseUrl: string) {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/v1`;
  return /^[A-Za-z0-9:/._~%+-]+$/.test(url) ? url : `'${url.replace(/'/g, `'\\''`)}'`;
}

export function coreCommands(opts: { deploymentBody: string; instances: KnownInstance[] }): string {
  const [first, ...others] = opts.instances;
  const lines = first
    ? [
        `# ${first.name.replace(/[\r\n]/g, ' ')}, as it reported itself to the Hub; a Core admin's access token or admin machine token (svm_…)`,
        ...others.map((o) => `# or ${o.name.replace(/[\r\n]/g, ' ')}: C=${apiBase(o.baseUrl)}`),
        `C=${apiBase(first.baseUrl)}`,
      ]
    : [
        "# your Core instance, and a Core admin's access token or admin machine token (svm_…)",
        `C=${PLACEHOLDER}/api/v1`,
      ];
  return [
    ...lines,
    'A="authorization: Bearer $CORE_TOKEN"',
    'curl -s -X POST -H "$A" $C/catalog/sync',
    `curl -s -X POST -H "$A" -H 'content-type: application/json' \\\n  -d ${opts.deploymentBody} $C/deployments`,
  ].join('\n');
}
