/**
 * The base of every gateway-client command: the global options (accepted
 * before or after the command words), the resolved client, output format
 * and colours, and one place that turns failures into exit codes.
 */
import { Command, Option, type BaseContext } from 'clipanion';
import { ManagementClient } from '../client/management-client.js';
import { normaliseServerUrl, resolveMcpServerUrl, resolveServerUrl } from '../client/server-url.js';
import { managementCalls, mcpCalls, type CapabilityCalls } from '../client/capability-calls.js';
import { colors, wantColor, type Colors } from '../output/colors.js';
import { defaultFormat, OUTPUT_FORMATS, renderOutput, renderRecord, type OutputFormat } from '../output/format.js';
import { oneOf } from '../option-values.js';
import { terminalSafeData } from '../output/terminal-safe.js';
import { reportError, UsageFailure } from '../output/report-error.js';

/** Options the REPL was started with; its commands inherit them. */
export interface GlobalDefaults {
  server?: string;
  /** Where `/mcp` is, when it is not at `server` (a session whose management API has a port of its own). */
  mcpServer?: string;
  token?: string;
  mcpToken?: string;
  output?: OutputFormat;
  color?: boolean;
}

export interface ClientContext extends BaseContext {
  defaults?: GlobalDefaults;
  /** Aborts the running command (Ctrl-C in the REPL). */
  signal?: AbortSignal;
}

/**
 * What a command writes. Text from the server (anything a backend, a
 * registry or an event said) goes through `print`, `printRecord` or
 * `notice`, which hand their text functions a terminal-safe copy of the
 * data; `out` and `err` are for the command's own words.
 */
export interface Io {
  client: ManagementClient;
  /** Tool calls, resource reads and prompts: through the management API, or over /mcp as the client of `--mcp-token`. */
  calls: CapabilityCalls;
  /** The base URL of the gateway's MCP endpoint. */
  mcpUrl: string;
  mcpToken?: string;
  format: OutputFormat;
  c: Colors;
  signal: AbortSignal;
  out(text: string): void;
  err(text: string): void;
  /** Prints `data` as JSON or YAML, or, for the table format, what `table` draws from a terminal-safe copy of it. */
  print<T>(data: T, table: (safe: T) => string): void;
  /** One record of a stream (`events follow`): a JSON line, a YAML document, or what `line` draws from a terminal-safe copy. */
  printRecord<T>(data: T, line: (safe: T) => string): void;
  /** A message for the person on stderr, in every format, drawn from a terminal-safe copy of `data`. */
  notice<T>(data: T, text: (safe: T) => string): void;
}

export abstract class ClientCommand extends Command<ClientContext> {
  server = Option.String('-s,--server', {
    description: 'Gateway URL (default $GATEWAY_URL, else the `default` session, else the only running session, else http://127.0.0.1:9000)',
  });
  token = Option.String('-t,--token', { description: 'Management API token (default $GATEWAY_MGMT_TOKEN)' });
  mcpToken = Option.String('--mcp-token', {
    description: 'MCP client token (default $GATEWAY_MCP_TOKEN): tools call, resources read and prompts get then go over /mcp as that client',
  });
  output = Option.String('-o,--output', { description: 'table, json or yaml (default table on a terminal, else json)', validator: oneOf(OUTPUT_FORMATS) });
  color = Option.Boolean('--color', { description: '--no-color: plain text even on a terminal' });

  abstract run(io: Io): Promise<number>;

  async execute(): Promise<number> {
    const d = this.context.defaults ?? {};
    const c = colors(wantColor(this.context.stdout, (this.color ?? d.color) === false));
    try {
      return await this.run(this.io(c, d));
    } catch (err) {
      if (this.context.signal?.aborted && (err as Error)?.name === 'AbortError') return 0;
      return reportError(err, this.context.stderr, c);
    }
  }

  private io(c: Colors, d: GlobalDefaults): Io {
    const format = this.output ?? d.output ?? defaultFormat(this.context.stdout);
    let baseUrl: string;
    let mcpUrl: string;
    try {
      baseUrl = normaliseServerUrl(resolveServerUrl(this.server ?? d.server));
      mcpUrl = normaliseServerUrl(this.server ?? d.mcpServer ?? resolveMcpServerUrl(d.server));
    } catch (err) {
      throw new UsageFailure((err as Error).message);
    }
    const client = new ManagementClient({ baseUrl, token: this.token ?? d.token ?? process.env.GATEWAY_MGMT_TOKEN });
    const mcpToken = this.mcpToken ?? d.mcpToken ?? (process.env.GATEWAY_MCP_TOKEN || undefined);
    const { stdout, stderr } = this.context;
    return {
      client,
      calls: mcpToken ? mcpCalls({ baseUrl: mcpUrl, token: mcpToken }) : managementCalls(client),
      mcpUrl,
      mcpToken,
      format,
      c,
      signal: this.context.signal ?? new AbortController().signal,
      out: (text) => stdout.write(text),
      err: (text) => stderr.write(text),
      print: (data, table) => stdout.write(renderOutput(format, data, table)),
      printRecord: (data, line) => stdout.write(renderRecord(format, data, line)),
      notice: (data, text) => stderr.write(text(terminalSafeData(data))),
    };
  }
}
