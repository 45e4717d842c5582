/** The audit trail a test gateway wrote (JSON lines), parsed; none while the file does not exist yet. */
import { existsSync, readFileSync } from 'node:fs';

export type AuditLine = Record<string, any>;

export function auditRecords(file: string, keep: (record: AuditLine) => boolean = () => true): AuditLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditLine)
    .filter(keep);
}
