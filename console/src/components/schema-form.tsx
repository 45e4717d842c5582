/**
 * A form made from a tool's input schema (JSON Schema): a text box for a
 * string (a list for an `enum`), a number box, a checkbox, one line per item
 * for a list of strings or numbers, a group of fields for a nested object,
 * and a JSON box for anything else. Required fields are marked, a field's
 * `description` is its help text, `default` its first value. "Edit as JSON"
 * shows the arguments as they will be sent, for schemas the form cannot draw.
 */
import { useId, useState } from 'preact/hooks';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  description?: string;
  title?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

type Args = Record<string, unknown>;

const typeOf = (s: JsonSchema): string | undefined => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

/** The first arguments: every default the schema gives. */
export function initialArguments(schema: JsonSchema): Args {
  const out: Args = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) out[name] = prop.default;
    else if (typeOf(prop) === 'object' && prop.properties) out[name] = initialArguments(prop);
  }
  return out;
}

/** Required fields left empty, as `a.b` paths. */
export function missingRequired(schema: JsonSchema, value: Args, prefix = ''): string[] {
  const missing: string[] = [];
  for (const name of schema.required ?? []) {
    const v = value[name];
    if (v === undefined || v === '') missing.push(prefix + name);
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const v = value[name];
    if (typeOf(prop) === 'object' && prop.properties && v && typeof v === 'object') missing.push(...missingRequired(prop, v as Args, `${prefix}${name}.`));
  }
  return missing;
}

export function SchemaForm({
  schema,
  value,
  onChange,
  onValidity,
}: {
  schema: JsonSchema;
  value: Args;
  onChange: (v: Args) => void;
  onValidity: (problems: string[]) => void;
}) {
  const [asJson, setAsJson] = useState(!schema.properties || Object.keys(schema.properties).length === 0);
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const report = (path: string, problem: string | undefined) => {
    setInvalid((prev) => {
      const next = { ...prev };
      if (problem) next[path] = problem;
      else delete next[path];
      onValidity(Object.entries(next).map(([p, m]) => `${p}: ${m}`));
      return next;
    });
  };
  return (
    <div class="schema-form">
      <label class="inline">
        <input type="checkbox" checked={asJson} onChange={(e) => setAsJson(e.currentTarget.checked)} /> Edit as JSON
      </label>
      {asJson ? (
        <JsonField
          label="Arguments (JSON object)"
          value={value}
          onChange={(v) => onChange((v ?? {}) as Args)}
          onProblem={(p) => report('arguments', p)}
          object
        />
      ) : (
        <Fields schema={schema} value={value} onChange={onChange} path="" report={report} />
      )}
      {Object.keys(invalid).length > 0 && (
        <ul class="problems" role="alert">
          {Object.entries(invalid).map(([p, m]) => (
            <li key={p}>
              {p}: {m}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Fields({
  schema,
  value,
  onChange,
  path,
  report,
}: {
  schema: JsonSchema;
  value: Args;
  onChange: (v: Args) => void;
  path: string;
  report: (p: string, m?: string) => void;
}) {
  const required = new Set(schema.required ?? []);
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, prop]) => (
        <Field
          key={name}
          name={name}
          path={path + name}
          schema={prop}
          required={required.has(name)}
          value={value[name]}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[name];
            else next[name] = v;
            onChange(next);
          }}
          report={report}
        />
      ))}
    </>
  );
}

function Field(props: {
  name: string;
  path: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  onChange: (v: unknown) => void;
  report: (p: string, m?: string) => void;
}) {
  const { name, path, schema, required, value, onChange, report } = props;
  const id = useId();
  const type = typeOf(schema);
  const label = (
    <>
      {schema.title ?? name}
      {required && (
        <abbr class="required" title="required">
          {' '}
          *
        </abbr>
      )}
    </>
  );
  const help = schema.description ? (
    <span class="help" id={`${id}-help`}>
      {schema.description}
    </span>
  ) : null;
  const describedBy = schema.description ? `${id}-help` : undefined;

  if (type === 'object' && schema.properties) {
    return (
      <fieldset>
        <legend>{label}</legend>
        {help}
        <Fields schema={schema} value={(value as Args | undefined) ?? {}} onChange={onChange} path={`${path}.`} report={report} />
      </fieldset>
    );
  }
  if (schema.enum) {
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <select
          id={id}
          aria-describedby={describedBy}
          required={required}
          value={value === undefined ? '' : JSON.stringify(value)}
          onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : JSON.parse(e.currentTarget.value))}
        >
          <option value="">—</option>
          {schema.enum.map((v) => (
            <option key={JSON.stringify(v)} value={JSON.stringify(v)}>
              {String(v)}
            </option>
          ))}
        </select>
        {help}
      </div>
    );
  }
  if (type === 'boolean') {
    return (
      <div class="field">
        <label class="inline" for={id}>
          <input id={id} type="checkbox" aria-describedby={describedBy} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} /> {label}
        </label>
        {help}
      </div>
    );
  }
  if (type === 'number' || type === 'integer') {
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          type="number"
          inputMode={type === 'integer' ? 'numeric' : 'decimal'}
          step={type === 'integer' ? 1 : 'any'}
          min={schema.minimum}
          max={schema.maximum}
          required={required}
          aria-describedby={describedBy}
          value={typeof value === 'number' ? value : ''}
          onInput={(e) => {
            const text = e.currentTarget.value;
            const n = Number(text);
            if (text === '') onChange(undefined);
            else if (!Number.isNaN(n)) onChange(n);
            report(
              path,
              text !== '' && (Number.isNaN(n) || (type === 'integer' && !Number.isInteger(n)))
                ? `must be ${type === 'integer' ? 'a whole number' : 'a number'}`
                : undefined,
            );
          }}
        />
        {help}
      </div>
    );
  }
  if (type === 'string') {
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          type="text"
          required={required}
          aria-describedby={describedBy}
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
        />
        {help}
      </div>
    );
  }
  const itemType = schema.items && typeOf(schema.items);
  if (type === 'array' && (itemType === 'string' || itemType === 'number' || itemType === 'integer')) {
    const lines = Array.isArray(value) ? value.map(String).join('\n') : '';
    return (
      <div class="field">
        <label for={id}>
          {label} <span class="muted">(one per line)</span>
        </label>
        <textarea
          id={id}
          rows={3}
          aria-describedby={describedBy}
          value={lines}
          onInput={(e) => {
            const items = e.currentTarget.value.split('\n').filter((l) => l.trim() !== '');
            const parsed = itemType === 'string' ? items : items.map(Number);
            report(path, parsed.some((n) => typeof n === 'number' && Number.isNaN(n)) ? 'every line must be a number' : undefined);
            onChange(items.length === 0 ? undefined : parsed);
          }}
        />
        {help}
      </div>
    );
  }
  return <JsonField label={name} value={value} onChange={onChange} onProblem={(p) => report(path, p)} help={schema.description} />;
}

function JsonField({
  label,
  value,
  onChange,
  onProblem,
  help,
  object,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  onProblem: (p?: string) => void;
  help?: string;
  object?: boolean;
}) {
  const id = useId();
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  return (
    <div class="field">
      <label for={id}>
        {label} <span class="muted">(JSON)</span>
      </label>
      <textarea
        id={id}
        rows={object ? 8 : 3}
        class="mono"
        spellcheck={false}
        value={text}
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          if (t.trim() === '') {
            onProblem(undefined);
            onChange(object ? {} : undefined);
            return;
          }
          try {
            const parsed: unknown = JSON.parse(t);
            if (object && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) throw new Error('must be a JSON object');
            onProblem(undefined);
            onChange(parsed);
          } catch (err) {
            onProblem(err instanceof SyntaxError ? 'is not valid JSON' : (err as Error).message);
          }
        }}
      />
      {help && <span class="help">{help}</span>}
    </div>
  );
}
