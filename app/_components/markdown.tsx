import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

/**
 * Template documentation. Raw HTML in the Markdown is not rendered (react-markdown escapes it), and the
 * resulting tree is sanitized with GitHub's allow-list (no scripts, no event handlers, no javascript: URLs).
 */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize]}>
        {source}
      </ReactMarkdown>
    </div>
  );
}
