/**
 * The template page's way to Core: a "Deploy on <instance>" link per instance of the member's organization, and
 * the commands that do the same over Core's API, with the instances' own URLs when the Hub knows them.
 */

export interface KnownInstance {
  name: string;
  baseUrl: string;
}

const PLACEHOLDER = 'https://core.example.com';

/** Where the token comes from: Core's own machine tokens (svm_), never a Hub credential. */
const TOKEN_LINES = [
  "# CORE_TOKEN: a Core admin machine token (svm_…), from Core's Machine tokens",
  '# page, or on the Core machine: npm run --silent core -- token create',
  '#   --name hub-deploy --role admin',
];

/** One line of a shell comment: an instance name never ends the comment early. */
const commentText = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** Core's API base for a reported base URL (trailing slashes dropped), quoted for the shell: an instance reports it. */
function apiBase(baseUrl: string) {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/v1`;
  return /^[A-Za-z0-9:/._~%+-]+$/.test(url) ? url : `'${url.replace(/'/g, `'\\''`)}'`;
}

/**
 * The instance's deploy page for the template (Core's web frontend: /deployments?template=<slug>), or null for a
 * base URL that is not http(s) (the Hub accepts only those when an instance reports one; this keeps a link from
 * ever carrying another scheme).
 */
export function deployHref(baseUrl: string, slug: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/deployments`;
  url.search = new URLSearchParams({ template: slug }).toString();
  url.hash = '';
  return url.toString();
}

/** "Deploy on <instance>" links, one per instance whose base URL makes one. */
export function deployLinks(instances: KnownInstance[], slug: string): { name: string; href: string }[] {
  return instances.flatMap((i) => {
    const href = deployHref(i.baseUrl, slug);
    return href ? [{ name: i.name, href }] : [];
  });
}

export function coreCommands(opts: { deploymentBody: string; instances: KnownInstance[] }): string {
  const [first, ...others] = opts.instances;
  const lines = first
    ? [
        `# C: the API of ${commentText(first.name)}, as it reported itself to the Hub`,
        ...others.map((o) => `# or ${commentText(o.name)}: C=${apiBase(o.baseUrl)}`),
        `C=${apiBase(first.baseUrl)}`,
      ]
    : ['# C: the API of your Core instance', `C=${PLACEHOLDER}/api/v1`];
  return [
    ...lines,
    ...TOKEN_LINES,
    'A="authorization: Bearer $CORE_TOKEN"',
    'curl -s -X POST -H "$A" $C/catalog/sync',
    `curl -s -X POST -H "$A" -H 'content-type: application/json' \\\n  -d ${opts.deploymentBody} $C/deployments`,
  ].join('\n');
}

/**
 * A command's text in runs for the page's code blocks: short words with a hyphen (--silent, hub-deploy,
 * content-type:) are kept whole, since a browser may break a line after any hyphen ("npm run -" / "-silent");
 * everything else wraps at spaces, and a token longer than the line (a URL, a JSON body) inside.
 */
export function codeTokens(code: string): { text: string; whole: boolean }[] {
  return code
    .split(/(\s+)/)
    .filter((t) => t !== '')
    .map((text) => ({ text, whole: text.length <= 24 && text.includes('-') && !/\s/.test(text) }));
}
