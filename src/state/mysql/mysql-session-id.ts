/**
 * Session ids in MySQL and MariaDB, compared byte for byte. A text column would not do: utf8mb4_bin
 * is PAD SPACE on MariaDB and MySQL 5.7 (`'a' = 'a '`), so new tables keep an id as its UTF-8 bytes,
 * enough for 255 characters of utf8mb4.
 */
export const SESSION_ID_TYPE = "VARBINARY(1020)";

/**
 * `column = ?` that holds only for the same bytes, also on a table an earlier version made with a
 * PAD SPACE text column (the first comparison finds the row by its key, the second drops a padded
 * match). Binds the id twice: `[id, id]`.
 */
export const sameId = (column: string): string =>
  `${column} = ? AND CAST(${column} AS BINARY) = CAST(? AS BINARY)`;

/** A session id as read back: a Buffer from a VARBINARY column, a string from an older text one. */
export const idText = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
