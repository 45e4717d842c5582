/**
 * A table people can sort (by any column with a sort key: click or Enter on
 * its header) and filter (the text box searches every column's text). The
 * rows keep their keys, so a live update changes cells in place.
 */
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ComponentChildren;
  /** The value sorted and searched by; absent: the column neither sorts nor is searched. */
  value?: (row: T) => string | number;
  numeric?: boolean;
}

export interface TableProps<T> {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** Shown instead of the table when there are no rows at all. */
  empty: ComponentChildren;
  filterable?: boolean;
  initialSort?: { key: string; dir: 'asc' | 'desc' };
  rowClass?: (row: T) => string | undefined;
}

export function Table<T>({ caption, columns, rows, rowKey, empty, filterable = true, initialSort, rowClass }: TableProps<T>) {
  const [sort, setSort] = useState(initialSort);
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    let out = needle ? rows.filter((r) => columns.some((c) => c.value && String(c.value(r)).toLowerCase().includes(needle))) : rows;
    const col = sort && columns.find((c) => c.key === sort.key);
    if (col?.value) {
      const v = col.value;
      const dir = sort!.dir === 'asc' ? 1 : -1;
      out = [...out].sort((a, b) => {
        const x = v(a);
        const y = v(b);
        return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * dir;
      });
    }
    return out;
  }, [rows, columns, sort, filter]);

  if (rows.length === 0) return <>{empty}</>;
  const toggle = (key: string) => setSort((s) => (s?.key === key ? { key, dir: s.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' }));
  return (
    <div class="table-block">
      {filterable && (
        <label class="filter">
          <span>Filter {caption.toLowerCase()}</span>
          <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder="Type to filter" />
          <span class="muted" aria-live="polite">
            {shown.length} of {rows.length}
          </span>
        </label>
      )}
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => {
                const dir = sort?.key === c.key ? sort.dir : undefined;
                return (
                  <th
                    key={c.key}
                    scope="col"
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
                    class={c.numeric ? 'num' : undefined}
                  >
                    {c.value ? (
                      <button type="button" class="sort" onClick={() => toggle(c.key)}>
                        {c.label}
                        <span class="sort-mark" aria-hidden="true">
                          {dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : '↕'}
                        </span>
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr key={rowKey(row)} class={rowClass?.(row)}>
                {columns.map((c) => (
                  <td key={c.key} class={c.numeric ? 'num' : undefined}>
                    {c.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {shown.length === 0 && (
        <p class="state state-empty">
          Nothing matches “{filter}”. Clear the filter to see all {rows.length}.
        </p>
      )}
    </div>
  );
}
