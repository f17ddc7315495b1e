/** A writer that keeps what it is given, for commands that print through `{ write }`. */
export function textSink(): { write(chunk: string): void; readonly text: string } {
  const chunks: string[] = [];
  return {
    write: (chunk: string) => {
      chunks.push(chunk);
    },
    get text() {
      return chunks.join("");
    },
  };
}
