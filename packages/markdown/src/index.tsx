/**
 * Template documentation, rendered the same way by the Hub (app/templates/[slug]) and Core's web frontend
 * (core/web, /catalog/<slug>): GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks).
 *
 * Documentation is written by catalog admins and shown to every reader, so it is treated as untrusted:
 * - raw HTML is never rendered (no rehype-raw): the sanitizer drops it, the Markdown around it stays;
 * - the tree is sanitized with GitHub's allow-list (rehype-sanitize: no scripts, styles, event handlers,
 *   javascript: URLs; ids get a "user-content-" prefix so they cannot clobber the page's own);
 * - links carry rel="noopener noreferrer": the linked site gets neither this window nor the page's URL.
 */
import type { ComponentPropsWithoutRef, ReactElement } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

type Level = 1 | 2 | 3 | 4 | 5 | 6;

export interface MarkdownProps {
  /** The Markdown source. */
  source: string;
  /**
   * The level a "#" heading gets. Documentation sits below the page's own title and section heading, so its
   * headings move down to keep the page's outline (one h1, no skipped levels); deeper ones stop at h6.
   */
  headingLevel?: Level;
  /** Extra classes beside "markdown" (each service styles .markdown in its own stylesheet). */
  className?: string;
}

function link({ node: _node, ...props }: ComponentPropsWithoutRef<'a'> & { node?: unknown }) {
  return <a {...props} rel="noopener noreferrer" />;
}

function headings(first: Level): Components {
  const components: Components = {};
  for (let level = 1; level <= 6; level++) {
    const Tag = `h${Math.min(6, level - 1 + first)}` as 'h1';
    components[`h${level}` as 'h1'] = ({ node: _node, ...props }) => <Tag {...props} />;
  }
  return components;
}

const componentsByLevel = new Map<Level, Components>();

function componentsFor(level: Level): Components {
  let components = componentsByLevel.get(level);
  if (!components) {
    components = { ...headings(level), a: link };
    componentsByLevel.set(level, components);
  }
  return components;
}

export function Markdown({ source, headingLevel = 1, className }: MarkdownProps): ReactElement {
  return (
    <div className={className ? `markdown ${className}` : 'markdown'}>
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[rehypeSanitize]}
        components={componentsFor(headingLevel)}
      >
        {source}
      </ReactMarkdown>
    </div>
  );
}
