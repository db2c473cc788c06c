import { isolatedKey } from '../workspace.js';

/**
 * ` AND <table>.workspace = $n` under an isolated workspace (OAuth mode), else nothing: a
 * request from one workspace reads none of another's sessions, whatever ids it carries. The value is
 * pushed onto `params`.
 */
export function scopedTo(table: string, params: unknown[]): string {
  const key = isolatedKey();
  return key === undefined ? '' : ` AND ${table}.workspace = $${params.push(key)}`;
}
