/** The table SQL stores use unless told otherwise. */
export const DEFAULT_STATE_TABLE = "agentscope_state";

/** SQL table names are spliced into statements, so they are restricted to plain identifiers. */
export function checkTableName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,47}$/.test(name)) {
    throw new TypeError(
      `table name ${JSON.stringify(name)} is not allowed: use letters, digits and _ (at most 48, not starting with a digit)`,
    );
  }
  return name;
}
