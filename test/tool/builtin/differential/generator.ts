// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell text, not templates
import fc from "fast-check";
import { readOnlyProgram } from "../../../../src/tool/builtin/bash/read-only-programs.js";
import { allowList } from "./judge.js";
import {
  CONSTRUCT_SAMPLES,
  EXTRA_OPTIONS,
  GIT_SUBCOMMANDS,
  HOT_PATHS,
  PATHS,
  PATTERNS,
  REDIRECTS,
  SUBSCRIPT_PAYLOADS,
  TEXT,
} from "./vocabulary.js";

/**
 * A grammar of shell commands built from the read-only allow-list: each program with the options
 * its own table lists (bundled, attached, `--opt=value`, abbreviated), options it does not list
 * that GNU tools really have, operands that are paths into the canary tree (symlinks out, `..`
 * through a symlink, globs, braces, /dev/fd and /proc/self/fd), shell words quoted every way, the
 * redirections bash offers, and the shell constructs around them. Most of it the analysis should
 * refuse; what it allows runs in the sandbox, and reality judges.
 */

/** The allow-listed programs the generic grammar draws from (git and find have grammars of their own). */
export function allowListedPrograms(): string[] {
  return allowList().filter((name) => name !== "git" && name !== "find");
}

const quote = (word: string) =>
  fc
    .constantFrom<(text: string) => string>(
      (text) => text,
      (text) => text,
      (text) => (/^[\w./-]+$/.test(text) ? `'${text}'` : text),
      (text) => (/^[\w./-]+$/.test(text) ? `"${text}"` : text),
      (text) => (/^[\w./-]+$/.test(text) ? `$'${text}'` : text),
      (text) => (/^[\w./-]+$/.test(text) ? `$"${text}"` : text),
      (text) => (/^[\w./-]{3,}$/.test(text) ? `${text.slice(0, 2)}$"${text.slice(2)}"` : text),
      (text) => (/^[\w./-]{2,}$/.test(text) ? `${text[0]}''${text.slice(1)}` : text),
      (text) => (/^[a-z][\w./-]*$/.test(text) ? `\\${text}` : text),
    )
    .map((style) => style(word));

/** `arbitrary` one time in `oneIn`, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: oneIn - 1 }, { arbitrary, weight: 1 });
}

const pathWord = fc.oneof(
  { arbitrary: fc.constantFrom(...HOT_PATHS), weight: 1 },
  { arbitrary: fc.constantFrom(...PATHS), weight: 2 },
);
const textWord = fc.constantFrom(...TEXT);
const valueWord = fc.oneof(
  fc.constantFrom(
    "5",
    "1",
    "0",
    "-1",
    "%s",
    "x",
    "a.txt",
    ".env",
    "/etc/hostname",
    "keys-link/../secret.txt",
  ),
  pathWord,
);

/** Programs that take another's extra options. */
const ALIASES: Record<string, string> = {
  gawk: "awk",
  mawk: "awk",
  nawk: "awk",
  egrep: "grep",
  fgrep: "grep",
};

/** The options one program gets, drawn from its own table and the extras. */
function optionsOf(name: string): fc.Arbitrary<string[]> {
  const compiled = readOnlyProgram(name);
  const flags = compiled ? [...compiled.flags] : [];
  const valued = compiled ? [...compiled.valued] : [];
  const shortFlags = flags.filter((flag) => /^-\w$/.test(flag));
  const longFlags = flags.filter((flag) => flag.startsWith("--"));
  const choices: fc.Arbitrary<string>[] = [];
  if (flags.length > 0)
    choices.push(fc.constantFrom(...flags).map((flag) => (flag.endsWith("=") ? `${flag}auto` : flag)));
  if (shortFlags.length > 1) {
    choices.push(
      fc
        .tuple(
          fc.subarray(shortFlags, { minLength: 2, maxLength: Math.min(4, shortFlags.length) }),
          fc.option(fc.constantFrom(...valued.filter((v) => /^-\w$/.test(v)).concat(["-n"]))),
          valueWord,
        )
        .map(
          ([bundle, tail, value]) =>
            `-${bundle.map((flag) => flag[1]).join("")}${tail ? `${tail[1]}${value}` : ""}`,
        ),
    );
  }
  if (valued.length > 0) {
    choices.push(
      fc.tuple(fc.constantFrom(...valued), valueWord, fc.nat(2)).map(([option, value, form]) => {
        if (form === 0 || !option.startsWith("--"))
          return form === 2 && !option.startsWith("--") ? `${option}${value}` : `${option} ${value}`;
        return `${option}=${value}`;
      }),
    );
  }
  if (longFlags.length > 0) {
    choices.push(
      fc.tuple(fc.constantFrom(...longFlags), fc.nat()).map(([flag, cut]) => {
        const bare = flag.replace(/=$/, "");
        return bare.slice(0, Math.max(4, bare.length - 1 - (cut % Math.max(1, bare.length - 4))));
      }),
    );
  }
  if (compiled?.spec.numeric) choices.push(fc.constantFrom("-5", "-1"));
  const weighted = choices.map((arbitrary) => ({ arbitrary, weight: 1 }));
  const extras = EXTRA_OPTIONS[name] ?? EXTRA_OPTIONS[ALIASES[name] ?? ""] ?? [];
  // The options the tables leave out are the ones most likely to be wrong: they come up as often as all others.
  if (extras.length > 0)
    weighted.push({ arbitrary: fc.constantFrom(...extras), weight: Math.max(1, choices.length) });
  if (weighted.length === 0) return fc.constant([]);
  return fc.array(fc.oneof(...weighted), { maxLength: 3 });
}

/** `{a,b}` of two quoted path words: bash removes the quotes inside each alternative. */
const bracedPaths = fc
  .tuple(pathWord.chain(quote), pathWord.chain(quote))
  .filter(([first, second]) => !/[\s,{}]/.test(first + second))
  .map(([first, second]) => `{${first},${second}}`);

function operandsOf(name: string): fc.Arbitrary<string[]> {
  const kind = readOnlyProgram(name)?.spec.operands ?? "text";
  const words = (word: fc.Arbitrary<string>, max: number) => fc.array(word.chain(quote), { maxLength: max });
  if (kind === "paths")
    return fc.array(
      fc.oneof({ arbitrary: pathWord.chain(quote), weight: 6 }, { arbitrary: bracedPaths, weight: 1 }),
      {
        maxLength: 3,
      },
    );
  if (kind === "patternThenPaths")
    return fc
      .tuple(fc.constantFrom(...PATTERNS), words(pathWord, 2))
      .map(([pattern, paths]) => [pattern, ...paths]);
  return words(fc.oneof(textWord, pathWord), 3);
}

/** One program with options, operands and maybe a redirection. */
function simpleCommand(programs: readonly string[]): fc.Arbitrary<string> {
  const generic = fc
    .constantFrom(...programs)
    .chain((name) =>
      fc
        .tuple(
          fc.constant(name),
          optionsOf(name),
          operandsOf(name),
          sometimes(fc.constantFrom(...REDIRECTS), 4),
        )
        .map(([program, options, operands, redirect]) =>
          [program, ...options, ...operands, ...(redirect ? [redirect] : [])].join(" "),
        ),
    );
  return fc.oneof(
    { arbitrary: generic, weight: 10 },
    { arbitrary: testCommand, weight: 2 },
    { arbitrary: gitCommand, weight: 3 },
    { arbitrary: findCommand, weight: 1 },
    { arbitrary: fc.constantFrom(...CONSTRUCT_SAMPLES), weight: 1 },
  );
}

const testCommand = fc
  .tuple(
    fc.constantFrom("test", "[", "[["),
    fc.oneof(
      fc
        .tuple(fc.constantFrom("-v", "-R", "-n", "-z"), fc.constantFrom(...SUBSCRIPT_PAYLOADS))
        .map(([option, word]) => `${option} ${word}`),
      fc
        .tuple(fc.constantFrom(...SUBSCRIPT_PAYLOADS), fc.constantFrom("-eq 0", "-lt 1", "-ge 0", "= x"))
        .map(([word, comparison]) => `${word} ${comparison}`),
      fc
        .tuple(
          fc.constantFrom("-e", "-f", "-r", "-s", "-L", "-d"),
          fc.constantFrom("a.txt", ".env", "keys-link", "notes-link"),
        )
        .map(([option, path]) => `${option} ${path}`),
      fc.constantFrom("a.txt -nt b.txt", "x = x", "-t 1", "1 -eq 1"),
    ),
  )
  .map(([program, body]) =>
    program === "[" ? `[ ${body} ]` : program === "[[" ? `[[ ${body} ]]` : `test ${body}`,
  );

const gitCommand = fc
  .tuple(
    fc.constantFrom("", "--no-pager ", "-P ", "--no-optional-locks ", "-C src "),
    fc.constantFrom(...GIT_SUBCOMMANDS),
    sometimes(fc.constantFrom("-- a.txt", "a.txt", "-- .env", "src", "*", "-- *", "*.txt"), 3),
  )
  .map(([global, sub, tail]) => `git ${global}${sub}${tail ? ` ${tail}` : ""}`);

const findCommand = fc
  .tuple(
    fc.constantFrom(
      "find",
      "find .",
      "find src",
      "find -L .",
      "find keys-link",
      "find . -maxdepth 1",
      "find *",
      "find -L src docs",
    ),
    fc.array(
      fc.constantFrom(
        "-name '*.txt'",
        "-type f",
        "-newer a.txt",
        "-print",
        "-print0",
        "-ls",
        "-fls out",
        "-fprint out",
        "-printf '%p\\n'",
        "-path './.git' -prune",
        "-o",
        "-size +0",
      ),
      { maxLength: 3 },
    ),
  )
  .map(([start, tests]) => [start, ...tests].join(" "));

const SEPARATORS = [" && ", " || ", "; ", " | ", "\n", " & "];
const WRAPPERS = [
  "",
  "",
  "",
  "",
  "nice ",
  "timeout 5 ",
  "command ",
  "nohup ",
  "stdbuf -oL ",
  "env ",
  "time ",
  "builtin ",
];

/** Whole command lines: one to three simple commands, each maybe wrapped, joined by operators. */
export function commandLines(programs: readonly string[] = allowListedPrograms()): fc.Arbitrary<string> {
  const piece = fc
    .tuple(fc.constantFrom(...WRAPPERS), simpleCommand(programs))
    .map(([wrapper, command]) => `${wrapper}${command}`);
  return fc
    .tuple(
      piece,
      fc.oneof(
        { arbitrary: fc.constant([]), weight: 6 },
        {
          arbitrary: fc.array(fc.tuple(fc.constantFrom(...SEPARATORS), piece), {
            minLength: 1,
            maxLength: 2,
          }),
          weight: 4,
        },
      ),
    )
    .map(([first, rest]) => rest.reduce((line, [separator, next]) => `${line}${separator}${next}`, first));
}

/** `count` command lines drawn from a fixed seed: the same list every run. */
export function generateCommands(seed: number, count: number): string[] {
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`generateCommands: count must be a whole number, got ${count}`);
  if (count === 0) return [];
  return fc.sample(commandLines(), { seed, numRuns: count });
}
