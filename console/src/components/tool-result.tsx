/** What a tool answered: text, images, audio, embedded resources and links as such, and the structured content as JSON. */
import type { ToolCallResult } from '../lib/types.js';
import { Json } from './code.js';

type Item = ToolCallResult['content'][number] & {
  data?: string;
  mimeType?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
  uri?: string;
  name?: string;
};

function ContentItem({ item, index }: { item: Item; index: number }) {
  switch (item.type) {
    case 'text':
      return (
        <pre class="code result-text" tabIndex={0} aria-label={`Text result ${index + 1}`}>
          {item.text}
        </pre>
      );
    case 'image':
      return item.data && item.mimeType?.startsWith('image/') ? (
        <img class="result-image" src={`data:${item.mimeType};base64,${item.data}`} alt={`Image result ${index + 1} (${item.mimeType})`} />
      ) : (
        <p class="muted">An image without data.</p>
      );
    case 'audio':
      return item.data && item.mimeType?.startsWith('audio/') ? (
        <audio controls src={`data:${item.mimeType};base64,${item.data}`} aria-label={`Audio result ${index + 1}`} />
      ) : (
        <p class="muted">Audio without data.</p>
      );
    case 'resource':
      return (
        <div class="result-resource">
          <p>
            Resource <code>{item.resource?.uri}</code> {item.resource?.mimeType && <span class="muted">({item.resource.mimeType})</span>}
          </p>
          {item.resource?.text !== undefined ? (
            <pre class="code" tabIndex={0}>
              {item.resource.text}
            </pre>
          ) : (
            <p class="muted">Binary content, {Math.round(((item.resource?.blob?.length ?? 0) * 3) / 4)} bytes.</p>
          )}
        </div>
      );
    case 'resource_link':
      return (
        <p>
          Link to resource <code>{item.uri}</code> {item.name && `(${item.name})`}
        </p>
      );
    default:
      return <Json value={item} label={`Result item ${index + 1}`} />;
  }
}

export function ToolResult({ result }: { result: ToolCallResult }) {
  return (
    <div class="tool-result" data-testid="tool-result">
      {result.isError && (
        <p class="note note-bad" role="alert">
          The tool reported an error (isError).
        </p>
      )}
      {result.content.length === 0 && !result.structuredContent && <p class="muted">The tool returned no content.</p>}
      {result.content.map((item, i) => (
        <ContentItem key={i} item={item as Item} index={i} />
      ))}
      {result.structuredContent && (
        <>
          <h3>Structured content</h3>
          <Json value={result.structuredContent} label="Structured content" />
        </>
      )}
    </div>
  );
}
