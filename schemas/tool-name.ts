/**
 * What a tool name the gateway exposes may be: the MCP tool-name rules
 * (1 to 128 ASCII letters, digits, `_`, `-` and `.`; the SDK's
 * `validateToolName` checks the same). The config check (rename targets) and
 * the route table (names as backends report them) both ask here.
 */

export const TOOL_NAME_MAX_LENGTH = 128;
/** One character of a tool name, as a regular expression class. */
export const TOOL_NAME_CHARACTER = '[A-Za-z0-9_.-]';
export const TOOL_NAME_PATTERN = `^${TOOL_NAME_CHARACTER}{1,${TOOL_NAME_MAX_LENGTH}}$`;
const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);
const ALLOWED_CHARACTER = new RegExp(`^${TOOL_NAME_CHARACTER}$`);
const RULE = `MCP tool names use letters, digits, "_", "-" and "." only, 1 to ${TOOL_NAME_MAX_LENGTH} characters`;

/** Why `name` cannot be exposed as a tool name, or undefined when it can. The name is quoted safely (see {@link printableName}). */
export function toolNameProblem(name: string): string | undefined {
  if (TOOL_NAME.test(name)) return undefined;
  if (name.length === 0) return `a tool name cannot be empty (${RULE})`;
  const bad = [...new Set([...name].filter((ch) => !ALLOWED_CHARACTER.test(ch)))];
  const what = bad.length > 0 ? `has ${bad.map(describeChar).join(', ')}` : `is ${name.length} characters long`;
  return `${printableName(name)} is not a valid tool name: it ${what}; ${RULE}`;
}

/**
 * A name in a message, quoted, with every character that is not printable
 * ASCII written as `\u{…}`: a right-to-left override or an escape sequence
 * must not rearrange or restyle the log line or terminal that shows it.
 */
export function printableName(name: string): string {
  return `"${[...name].map((ch) => (/^[\x20-\x7e]$/.test(ch) && ch !== '"' && ch !== '\\' ? ch : `\\u{${codePoint(ch)}}`)).join('')}"`;
}

function describeChar(ch: string): string {
  const code = `U+${codePoint(ch).padStart(4, '0')}`;
  // Invisible and formatting characters are named by code point only.
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch) ? `"${ch}" (${code})` : code === 'U+0020' ? 'a space' : code;
}

const codePoint = (ch: string) => ch.codePointAt(0)!.toString(16).toUpperCase();
