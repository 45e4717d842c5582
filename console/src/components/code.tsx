/** JSON and unified diffs as text blocks people can read and copy. */

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="code" tabIndex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** A unified diff, its added and removed lines marked (by sign and colour). */
export function Diff({ text, label }: { text: string; label: string }) {
  if (!text) return <p class="muted">No change.</p>;
  return (
    <pre class="code diff" tabIndex={0} aria-label={label}>
      {text.split('\n').map((line, i) => (
        <span
          key={i}
          class={
            line.startsWith('+') && !line.startsWith('+++')
              ? 'add'
              : line.startsWith('-') && !line.startsWith('---')
                ? 'del'
                : line.startsWith('@@')
                  ? 'hunk'
                  : undefined
          }
        >
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
