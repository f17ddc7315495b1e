/**
 * A reader of GNU sed scripts, enough to tell what a script does besides printing: `w`/`W` and the
 * `s///w` flag write files, `r`/`R` read them, `e` and the `s///e` flag run shell commands. A script
 * it cannot read to the end is not understood (and is treated as one that may do all of these).
 */
export interface SedScript {
  /** Every command was read. */
  understood: boolean;
  /** Files written (`w file`, `W file`, `s/a/b/w file`). */
  writes: string[];
  /** Files read into the output (`r file`, `R file`). */
  reads: string[];
  /** An `e` command or `s///e` flag runs shell commands. */
  runs: boolean;
}

/** Commands without an argument. */
const BARE = new Set([..."=dDgGhHnNpPxzF"]);
/** Commands taking an optional number (`q 5`, `l 70`). */
const NUMBERED = new Set([..."qQlL"]);
/** Commands taking an optional label. */
const LABELLED = new Set([..."btT"]);
/** Commands taking the rest of the line as a file name. */
const FILE_COMMANDS = new Set([..."rRwW"]);
/** Commands taking the rest of the line as text. */
const TEXT_COMMANDS = new Set([..."aic"]);

/** Reads a sed script (several `-e` scripts joined with newlines). */
export function readSedScript(script: string): SedScript {
  const result: SedScript = { understood: true, writes: [], reads: [], runs: false };
  const reader = new Reader(script);
  const fail = (): SedScript => ({ ...result, understood: false });
  for (;;) {
    reader.skip(/[\s;]/);
    if (reader.done()) return result;
    if (reader.peek() === "#") {
      reader.toLineEnd();
      continue;
    }
    if (reader.peek() === "}") {
      reader.next();
      continue;
    }
    if (!reader.address()) return fail();
    reader.skip(/\s/);
    if (reader.peek() === ",") {
      reader.next();
      reader.skip(/\s/);
      if (!reader.address(true)) return fail();
      reader.skip(/\s/);
    }
    while (reader.peek() === "!") {
      reader.next();
      reader.skip(/\s/);
    }
    const command = reader.next();
    if (command === undefined) return fail();
    if (command === "{" || BARE.has(command)) continue;
    if (NUMBERED.has(command)) {
      reader.skip(/[ \t]/);
      reader.skip(/\d/);
      continue;
    }
    if (LABELLED.has(command) || command === ":") {
      reader.skip(/[ \t]/);
      const label = reader.until(/[;\n]/);
      if (command === ":" && label.trim() === "") return fail();
      continue;
    }
    if (FILE_COMMANDS.has(command)) {
      const file = reader.toLineEnd().trim();
      if (file === "") return fail();
      (command === "r" || command === "R" ? result.reads : result.writes).push(file);
      continue;
    }
    if (TEXT_COMMANDS.has(command)) {
      reader.appendedText();
      continue;
    }
    if (command === "e") {
      result.runs = true;
      reader.toLineEnd();
      continue;
    }
    if (command === "v") {
      reader.until(/[;\n]/);
      continue;
    }
    if (command === "y") {
      const delimiter = reader.next();
      if (!delimiter || /[\s\\]/.test(delimiter)) return fail();
      if (reader.delimited(delimiter) === undefined || reader.delimited(delimiter) === undefined)
        return fail();
      continue;
    }
    if (command === "s") {
      if (!substitution(reader, result)) return fail();
      continue;
    }
    return fail();
  }
}

/** `s/re/replacement/flags`, the flags `e` and `w file` recorded. */
function substitution(reader: Reader, result: SedScript): boolean {
  const delimiter = reader.next();
  if (!delimiter || /[\s\\]/.test(delimiter)) return false;
  if (reader.delimited(delimiter) === undefined || reader.delimited(delimiter) === undefined) return false;
  for (;;) {
    const flag = reader.peek();
    if (flag === undefined || /[\s;}]/.test(flag)) return true;
    reader.next();
    if (flag === "e") result.runs = true;
    else if (flag === "w") {
      const file = reader.toLineEnd().trim();
      if (file === "") return false;
      result.writes.push(file);
      return true;
    } else if (!/[gpiImM0-9]/.test(flag)) return false;
  }
}

class Reader {
  private at = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }

  peek(): string | undefined {
    return this.text[this.at];
  }

  next(): string | undefined {
    return this.text[this.at++];
  }

  skip(pattern: RegExp): void {
    while (!this.done() && pattern.test(this.text[this.at]!)) this.at++;
  }

  until(stop: RegExp): string {
    const start = this.at;
    while (!this.done() && !stop.test(this.text[this.at]!)) this.at++;
    return this.text.slice(start, this.at);
  }

  toLineEnd(): string {
    return this.until(/\n/);
  }

  /** `a text`, or `a\` and lines continued by an odd number of trailing backslashes. */
  appendedText(): void {
    for (;;) {
      const line = this.toLineEnd();
      const trailing = /\\*$/.exec(line)?.[0].length ?? 0;
      if (trailing % 2 === 0 || this.done()) return;
      this.next();
    }
  }

  /** Text up to an unescaped delimiter, which is consumed; undefined when there is none. */
  delimited(delimiter: string): string | undefined {
    const start = this.at;
    while (!this.done()) {
      const char = this.next()!;
      if (char === "\\") this.next();
      else if (char === delimiter) return this.text.slice(start, this.at - 1);
    }
    return undefined;
  }

  /** An address: `12`, `1~2`, `$`, `/re/I`, `\cREc`, and after a comma also `+3`, `~4`. Absent is fine. */
  address(second = false): boolean {
    const char = this.peek();
    if (char === undefined) return true;
    if (/\d/.test(char)) {
      this.skip(/\d/);
      if (this.peek() === "~") {
        this.next();
        this.skip(/\d/);
      }
      return true;
    }
    if (char === "$") {
      this.next();
      return true;
    }
    if (second && (char === "+" || char === "~")) {
      this.next();
      this.skip(/\d/);
      return true;
    }
    if (char === "/" || char === "\\") {
      this.next();
      const delimiter = char === "/" ? "/" : this.next();
      if (!delimiter || delimiter === "\n") return false;
      if (this.delimited(delimiter) === undefined) return false;
      this.skip(/[IM]/);
      return true;
    }
    return !second;
  }
}
