/**
 * Operands bash itself evaluates: a variable name may carry an array subscript, and a subscript or
 * an arithmetic operand is expanded when it is evaluated. Quotes hide that from a parser:
 * `test -v 'a[$(id)]'`, `printf -v 'a[$(id)]' x`, `read 'a[$(id)]'`, `[[ x -eq 'a[$(id)]' ]]` all
 * run `id`. These checks say when a command's operands may hide such code.
 */

/** Builtins that take variable names (with subscripts) or arithmetic text as operands. */
const EVALUATES_NAMES = new Set([
  "printf",
  "read",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "unset",
  "let",
  "mapfile",
  "readarray",
  "getopts",
  "wait",
]);
/** Builtins whose `-n` makes a name reference: every later use evaluates its value as a name. */
const NAMEREFS = new Set(["declare", "typeset", "local"]);
/** Test operators whose operand is a variable name (`-v`, `-R`). */
const NAME_OPERATORS = new Set(["-v", "-R"]);
/** Test operators that evaluate both sides as arithmetic. */
const ARITHMETIC_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INTEGER = /^[+-]?\d+$/;
/** Text bash would expand if it evaluated it as a subscript or arithmetic. */
const EXPANDS = /[$`]/;

/**
 * Why a command's operands may run code bash evaluates from them, or undefined. `program` is the
 * program as it runs (wrappers removed); `args` are its words after quote removal.
 */
export function evaluatedOperandReason(program: string, args: readonly string[]): string | undefined {
  if (program === "test" || program === "[" || program === "[[") return testExpressionReason(args);
  if (!EVALUATES_NAMES.has(program)) return undefined;
  if (NAMEREFS.has(program) && args.some((arg) => /^-\w*n/.test(arg)))
    return `${program} -n makes a name reference, whose value is evaluated as a name (a[$(cmd)] runs cmd)`;
  const operands = program === "printf" ? printfVariable(args) : args;
  const hiding = operands.find(
    (arg) => (arg.includes("[") && EXPANDS.test(arg)) || (program === "let" && EXPANDS.test(arg)),
  );
  return hiding === undefined
    ? undefined
    : `${program} evaluates the operand ${hiding}, which can run a command hidden in it`;
}

/** printf only evaluates the name after `-v` (`-v name`, `-vname`); its format is plain text. */
function printfVariable(args: readonly string[]): string[] {
  const at = args.findIndex((arg) => arg.startsWith("-v"));
  if (at === -1) return [];
  return args[at] === "-v" ? args.slice(at + 1, at + 2) : [args[at]!.slice(2)];
}

/**
 * Whether every operand of `test`/`[`/`[[` that bash evaluates is plain: a `-v` name without a
 * subscript, integers on both sides of `-eq` and its kin. Undefined when so.
 */
function testExpressionReason(args: readonly string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (NAME_OPERATORS.has(arg)) {
      const name = args[index + 1];
      if (name !== undefined && !PLAIN_NAME.test(name))
        return `test ${arg} evaluates ${name} as a variable name, which can run a command hidden in it`;
    }
    if (ARITHMETIC_OPERATORS.has(arg)) {
      const sides = [args[index - 1], args[index + 1]];
      const odd = sides.find((side) => side !== undefined && !INTEGER.test(side));
      if (odd !== undefined)
        return `test ${arg} evaluates ${odd} as arithmetic, which can run a command hidden in it`;
    }
  }
  return undefined;
}

/** Arithmetic text (`$(( ... ))`, `(( ... ))`) that only holds numbers and operators. */
export function isPlainArithmetic(text: string): boolean {
  return !/[A-Za-z_$`'"\\[]/.test(text.replace(/^\$?\(\(|\)\)$/g, "").replace(/0[xX][0-9a-fA-F]+/g, "0"));
}
