/**
 * One tool: what it is, a form made from its input schema, and, once called
 * (by an operator), its result and the audit record of that very call.
 */
import { useState } from 'preact/hooks';
import { ApiError, get, post, query } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { href } from '../lib/router.js';
import type { Audit, AuditRecord, Capabilities, ToolCallResult } from '../lib/types.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';
import { Action, useAllows } from '../components/role.js';
import { Json } from '../components/code.js';
import { initialArguments, missingRequired, SchemaForm, type JsonSchema } from '../components/schema-form.js';
import { ToolResult } from '../components/tool-result.js';
import { AuditRecordView } from '../components/audit-record.js';
import { notCallable, Standing } from './capabilities.js';

export function ToolPage({ name }: { name: string }) {
  const r = useResource(() => get<Capabilities>(`/capabilities${query({ type: 'tools', search: name })}`), [name], { live: true });
  const tool = r.data?.tools.find((t) => t.name === name && !t.filtered && !t.hidden_by) ?? r.data?.tools.find((t) => t.name === name);
  return (
    <section>
      <p class="crumbs">
        <a href={href('capabilities')}>Tools</a> /
      </p>
      <h1>
        {name} {tool && <Standing tool={tool} />}
      </h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data && !r.error && <Loading what="the tool" />}
      {r.data && !tool && <Empty>The gateway serves no tool “{name}” now. Its backend may be down or the tool removed: see Backends.</Empty>}
      {tool && <ToolBody key={`${tool.backend}/${tool.name}`} tool={tool} />}
    </section>
  );
}

function ToolBody({ tool }: { tool: Capabilities['tools'][number] }) {
  const schema = (tool.input_schema ?? {}) as JsonSchema;
  const [args, setArgs] = useState(() => initialArguments(schema));
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ToolCallResult | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [record, setRecord] = useState<AuditRecord | null | undefined>(undefined);
  const blocked = notCallable(tool);
  const missing = missingRequired(schema, args);
  const mayCall = useAllows('operator') && problems.length === 0 && missing.length === 0;

  const call = async () => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    setRecord(undefined);
    try {
      const res = await post<ToolCallResult>('/tools/call', { tool: tool.name, arguments: args });
      setResult(res);
      const audit = await get<Audit>(`/audit${query({ call_id: res.call_id, limit: 1 })}`);
      setRecord(audit.records[0] ?? null);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <dl class="facts">
        <dt>Backend</dt>
        <dd>
          <a href={href('backends', tool.backend)}>{tool.backend}</a>
          {tool.renamed && (
            <>
              , called <code>{tool.original_name}</code> there
            </>
          )}
        </dd>
        <dt>Description</dt>
        <dd class="prewrap">{tool.description || <span class="muted">none</span>}</dd>
        {blocked && (
          <>
            <dt>Clients</dt>
            <dd>
              Not callable: {blocked}. {tool.quarantined && <a href={href('pending')}>Review it on the Pending definitions page.</a>}
            </dd>
          </>
        )}
      </dl>
      <details>
        <summary>Input schema</summary>
        <Json value={tool.input_schema} label="Input schema" />
      </details>
      <h2>Call it</h2>
      {blocked ? (
        <Empty>This tool cannot be called: {blocked}.</Empty>
      ) : (
        <form
          class="call-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (mayCall && !busy) void call();
          }}
        >
          <SchemaForm schema={schema} value={args} onChange={setArgs} onValidity={setProblems} />
          {missing.length > 0 && <p class="muted">Required: {missing.join(', ')}</p>}
          <Action
            needs="operator"
            onClick={() => void call()}
            busy={busy}
            disabled={problems.length > 0 || missing.length > 0}
            why="Fill in the required fields first"
            kind="primary"
          >
            {busy ? 'Calling…' : 'Call tool'}
          </Action>
        </form>
      )}
      {error && <ErrorNote error={error} />}
      {result && (
        <>
          <h2>Result</h2>
          <p class="muted">
            Served by {result.backend}; call id <code>{result.call_id}</code>
          </p>
          <ToolResult result={result} />
          <h2>Audit record</h2>
          {record === undefined ? (
            <Loading what="the audit record" />
          ) : record === null ? (
            <Empty>No audit record was found for this call: the audit trail may be off (audit.enabled).</Empty>
          ) : (
            <AuditRecordView record={record} />
          )}
        </>
      )}
    </>
  );
}
