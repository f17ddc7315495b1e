/** The shell constructs the Bash analysis models, and the limits of what it reads. */

/** Control flow: a person confirms it (its branches depend on what runs). */
export const CONTROL_FLOW: Record<string, string> = {
  If: "an if statement",
  For: "a for loop",
  ArithmeticFor: "a for loop",
  While: "a while loop",
  Case: "a case statement",
  Select: "a select loop",
  Subshell: "a subshell",
  BraceGroup: "a { ...; } group",
  Function: "a function definition",
  Coproc: "a coprocess",
  ArithmeticCommand: "an arithmetic command",
};
/** Nesting of scripts in scripts (`bash -c "bash -c ..."`) read at most. */
export const MAX_DEPTH = 4;
/** Longer commands are not parsed at all: they count as hidden (deny rules match them). */
export const MAX_COMMAND_CHARS = 100_000;
/** Node types the analysis models; any other asks, and deny rules match it. */
export /** Node types the analysis models; any other asks, and deny rules match it. */
const MODELLED = new Set([
  "Script",
  "Statement",
  "Command",
  "Pipeline",
  "AndOr",
  "Negation",
  "Time",
  "CompoundList",
  "Redirected",
  "Redirect",
  "Assignment",
  "ArrayValue",
  "Word",
  "FileDescriptor",
  "HereDocDelimiter",
  "HereDocBody",
  "TestCommand",
  "Elif",
  "CaseItem",
  ...Object.keys(CONTROL_FLOW),
  // Inside words, expressions and redirections: their expansions are judged where they appear.
  ...["Literal", "Glob", "ExtendedGlob", "BraceExpansion", "SingleQuoted", "DoubleQuoted", "AnsiCQuoted"],
  ...["LocaleString", "SimpleExpansion", "ParameterExpansion", "CommandExpansion", "ProcessSubstitution"],
  ...["ArithmeticExpansion", "ArithmeticCommandExpansion", "ArithmeticBinary", "ArithmeticUnary"],
  ...["ArithmeticTernary", "ArithmeticGroup", "ArithmeticWord", "TestUnary", "TestBinary", "TestLogical"],
  ...["TestNot", "TestGroup", "Default", "Remove", "Replace", "Slice", "Transform", "CaseModification"],
  ...["Names", "FileDescriptorVariable", "HereDoc", "HereString"],
]);
