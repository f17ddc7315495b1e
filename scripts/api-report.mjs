#!/usr/bin/env node
// The API report: every name each package.json export makes public, its kind and its type as the
// TypeScript checker prints it, one markdown file per subpath under api/. Committed, so a change of
// the public surface is a visible diff; test/build/api-report.test.ts fails when the files are stale.
//
//   npm run api:report          rewrite api/*.api.md and print the count of names per subpath
//
// It reads the sources (src/**/index.ts, mapped from each export's "types" path), no build needed.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const reportDir = join(root, "api");
const LINE = 100;
const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrayAsGenericType;

/** The package's public entry points: subpath ("." , "./model", ...) → source file. */
export function entryPoints(dir = root) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  return Object.entries(pkg.exports).map(([subpath, target]) => {
    const types = typeof target === "string" ? target : target.types;
    if (!types?.startsWith("./dist/") || !types.endsWith(".d.ts"))
      throw new Error(`package.json exports["${subpath}"].types must be ./dist/<path>.d.ts, got ${types}`);
    const source = join(dir, "src", types.slice("./dist/".length, -".d.ts".length) + ".ts");
    return { subpath, specifier: subpath === "." ? pkg.name : pkg.name + subpath.slice(1), source };
  });
}

/** The report file of a subpath: "agentscope" → agentscope.api.md, "agentscope/model/kit" → agentscope-model-kit.api.md. */
export const reportFileName = (specifier) => `${specifier.replaceAll("/", "-")}.api.md`;

function compilerOptions() {
  const configFile = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  return { ...parsed.options, noEmit: true, declaration: false, sourceMap: false };
}

const typeParameters = (declaration) =>
  declaration?.typeParameters?.length
    ? `<${declaration.typeParameters.map((p) => p.getText().replace(/\s+/g, " ")).join(", ")}>`
    : "";

class Printer {
  constructor(checker) {
    this.checker = checker;
  }

  type(type, flags = FLAGS) {
    const node = this.checker.typeToTypeNode(type, undefined, flags | ts.NodeBuilderFlags.IgnoreErrors);
    return node ? this.print(node) : this.checker.typeToString(type, undefined, flags);
  }

  signature(signature, kind = ts.SignatureKind.Call) {
    const syntax =
      kind === ts.SignatureKind.Construct ? ts.SyntaxKind.ConstructSignature : ts.SyntaxKind.CallSignature;
    const flags =
      FLAGS | ts.NodeBuilderFlags.IgnoreErrors | ts.NodeBuilderFlags.WriteTypeParametersInQualifiedName;
    const node = this.checker.signatureToSignatureDeclaration(signature, syntax, undefined, flags);
    return node ? this.print(node) : this.checker.signatureToString(signature, undefined, FLAGS, kind);
  }

  /**
   * A type or signature node as one line. Union members and the properties of an object literal type
   * print sorted: the checker orders them by when it first met each type, which moves with every
   * unrelated change to what the program checks first (a barrel's export list), and the report must
   * change only when the surface does. Neither order means anything to TypeScript.
   */
  print(node) {
    const sorted = SORT_MEMBERS ? this.sorted(node) : node;
    return nodePrinter.printNode(ts.EmitHint.Unspecified, sorted, emptyFile).replace(/\r?\n\s*/g, " ");
  }

  sorted(node) {
    const visit = (child) => {
      const next = ts.visitEachChild(child, visit, ts.nullTransformationContext);
      if (ts.isUnionTypeNode(next)) return ts.factory.updateUnionTypeNode(next, this.byText(next.types));
      if (ts.isTypeLiteralNode(next) && next.members.every(ts.isPropertySignature))
        return ts.factory.updateTypeLiteralNode(next, this.byText(next.members));
      return next;
    };
    return visit(node);
  }

  byText(nodes) {
    const keyed = nodes.map((node) => {
      const text = nodePrinter.printNode(ts.EmitHint.Unspecified, node, emptyFile);
      // `T | undefined`, as people write it: the empty members go last.
      return { node, key: `${text === "undefined" || text === "null" ? 1 : 0}${text}` };
    });
    return ts.factory.createNodeArray(keyed.sort((a, b) => compare(a.key, b.key)).map((k) => k.node));
  }

  /**
   * A type alias's right-hand side. A long union prints one member a line, sorted, so adding a member
   * is a one-line diff and the checker's internal order of union members cannot reorder the report.
   */
  aliased(type) {
    const text = this.type(type, FLAGS | ts.TypeFormatFlags.InTypeAlias);
    const booleans = type.isUnion() && type.types.some((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    if (text.length <= LINE || !type.isUnion() || booleans) return ` ${text}`;
    const members = type.types.map((t) => this.type(t)).sort(compare);
    return members.map((m) => `\n  | ${m}`).join("");
  }

  /** A class's or interface's own members (inherited ones show in the heritage clause), one a line. */
  members(symbols, { skipPrivate }) {
    const lines = [];
    // symbolToString prints a symbol-keyed member as [Symbol.asyncIterator], never its internal id.
    const named = [...symbols].map((member) => ({ member, name: this.checker.symbolToString(member) }));
    for (const { member, name } of named.sort((a, b) => compare(a.name, b.name))) {
      const declaration = member.valueDeclaration ?? member.declarations?.[0];
      const modifiers = declaration ? ts.getCombinedModifierFlags(declaration) : 0;
      if (skipPrivate && (modifiers & ts.ModifierFlags.Private || name.startsWith("#"))) continue;
      if (name === "prototype") continue;
      const prefix = [
        modifiers & ts.ModifierFlags.Protected ? "protected " : "",
        modifiers & ts.ModifierFlags.Static ? "static " : "",
        modifiers & ts.ModifierFlags.Abstract ? "abstract " : "",
        modifiers & ts.ModifierFlags.Readonly ? "readonly " : "",
      ].join("");
      const optional = member.flags & ts.SymbolFlags.Optional ? "?" : "";
      const type = this.checker.getTypeOfSymbol(member);
      if (member.flags & ts.SymbolFlags.Method) {
        for (const signature of type.getCallSignatures())
          lines.push(`  ${prefix}${name}${optional}${this.signature(signature)};`);
      } else if (member.flags & ts.SymbolFlags.Accessor && !(member.flags & ts.SymbolFlags.SetAccessor)) {
        lines.push(`  ${prefix}get ${name}(): ${this.type(type)};`);
      } else {
        lines.push(`  ${prefix}${name}${optional}: ${this.type(type)};`);
      }
    }
    return lines;
  }

  isOwn(member, owner) {
    return (member.declarations ?? []).some((d) => owner.declarations?.includes(d.parent));
  }

  heritage(declaration) {
    const clauses = declaration.heritageClauses ?? [];
    return clauses
      .map((clause) => {
        const keyword = clause.token === ts.SyntaxKind.ExtendsKeyword ? "extends" : "implements";
        const types = clause.types.map((t) => this.type(this.checker.getTypeAtLocation(t)));
        return ` ${keyword} ${types.join(", ")}`;
      })
      .join("");
  }

  /** The report entries of one exported symbol; a name can be both a value and a type. */
  entries(name, symbol) {
    const { checker } = this;
    const flags = symbol.flags;
    const declarations = symbol.declarations ?? [];
    const find = (kind) => declarations.find((d) => d.kind === kind);
    const out = [];
    if (flags & ts.SymbolFlags.Class) {
      const declaration = find(ts.SyntaxKind.ClassDeclaration);
      const instance = checker.getDeclaredTypeOfSymbol(symbol);
      const statics = checker.getTypeOfSymbol(symbol);
      const own = checker.getPropertiesOfType(instance).filter((m) => this.isOwn(m, symbol));
      const constructors = statics
        .getConstructSignatures()
        .filter((s) => s.declaration && declarations.includes(s.declaration.parent))
        .map((s) => `  constructor${this.signature(s).replace(/: [^:]*$/, "")};`);
      const abstract = declaration && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Abstract;
      out.push({
        kind: "class",
        text: [
          `${abstract ? "abstract " : ""}class ${name}${typeParameters(declaration)}${declaration ? this.heritage(declaration) : ""} {`,
          ...constructors,
          ...this.members(
            checker.getPropertiesOfType(statics).filter((m) => this.isOwn(m, symbol)),
            { skipPrivate: true },
          ),
          ...this.members(own, { skipPrivate: true }),
          "}",
        ].join("\n"),
      });
    } else if (flags & ts.SymbolFlags.Function) {
      for (const signature of checker.getTypeOfSymbol(symbol).getCallSignatures())
        out.push({ kind: "function", text: `function ${name}${this.signature(signature)}` });
    } else if (flags & ts.SymbolFlags.Enum) {
      const members = checker.getExportsOfModule(symbol).map((m) => {
        const value = checker.getConstantValue(m.valueDeclaration);
        return `  ${m.name} = ${JSON.stringify(value)},`;
      });
      out.push({ kind: "enum", text: [`enum ${name} {`, ...members, "}"].join("\n") });
    } else if (flags & ts.SymbolFlags.Variable) {
      const declaration = symbol.valueDeclaration;
      const keyword =
        declaration && ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const ? "const" : "let";
      out.push({ kind: keyword, text: `${keyword} ${name}: ${this.type(checker.getTypeOfSymbol(symbol))}` });
    } else if (flags & ts.SymbolFlags.ValueModule) {
      const names = checker.getExportsOfModule(symbol).map((m) => m.name);
      out.push({ kind: "namespace", text: `namespace ${name} { ${names.sort(compare).join(", ")} }` });
    }
    if (flags & ts.SymbolFlags.Interface) {
      const declaration = find(ts.SyntaxKind.InterfaceDeclaration);
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      const own = checker.getPropertiesOfType(type).filter((m) => this.isOwn(m, symbol));
      const calls = type.getCallSignatures().map((s) => `  ${this.signature(s)};`);
      const constructs = type
        .getConstructSignatures()
        .map((s) => `  new ${this.signature(s, ts.SignatureKind.Construct)};`);
      const indexes = checker
        .getIndexInfosOfType(type)
        .map(
          (i) => `  ${i.isReadonly ? "readonly " : ""}[key: ${this.type(i.keyType)}]: ${this.type(i.type)};`,
        );
      out.push({
        kind: "interface",
        text: [
          `interface ${name}${typeParameters(declaration)}${declaration ? this.heritage(declaration) : ""} {`,
          ...calls,
          ...constructs,
          ...indexes,
          ...this.members(own, { skipPrivate: false }),
          "}",
        ].join("\n"),
      });
    }
    if (flags & ts.SymbolFlags.TypeAlias) {
      const declaration = find(ts.SyntaxKind.TypeAliasDeclaration);
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      out.push({ kind: "type", text: `type ${name}${typeParameters(declaration)} =${this.aliased(type)}` });
    }
    if (out.length === 0) out.push({ kind: "unknown", text: `${name} (symbol flags ${flags})` });
    return out;
  }
}

const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const nodePrinter = ts.createPrinter({ removeComments: true, omitTrailingSemicolon: true });
const emptyFile = ts.createSourceFile("report.ts", "", ts.ScriptTarget.Latest);
const SORT_MEMBERS = process.env.API_REPORT_UNSORTED !== "1";

/** Makes printed types independent of the checkout's location. */
const portable = (text) => text.replaceAll(root + sep, "").replaceAll(root.replaceAll(sep, "/") + "/", "");

/**
 * The reports, computed in memory: one per entry point, with its exported names.
 * @returns {{ subpath: string, specifier: string, file: string, names: string[], text: string }[]}
 */
export function apiReports({ checkOrder = "package" } = {}) {
  const entries = entryPoints();
  // checkOrder "reversed" checks the entry points last to first (the test's way to prove that the
  // report does not depend on which types the checker meets first); the reports come out in order.
  const checked = checkOrder === "reversed" ? [...entries].reverse() : entries;
  const program = ts.createProgram({ rootNames: checked.map((e) => e.source), options: compilerOptions() });
  const checker = program.getTypeChecker();
  const printer = new Printer(checker);
  const reports = checked.map(({ subpath, specifier, source }) => {
    const file = program.getSourceFile(source);
    if (!file)
      throw new Error(`package.json exports["${subpath}"] points at ${source}, which does not exist`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    const exported = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
    const rows = exported
      .map((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return { name: symbol.name, entries: printer.entries(symbol.name, target) };
      })
      .sort((a, b) => compare(a.name, b.name));
    const body = rows
      .map(({ name, entries }) =>
        [
          `### ${name} (${entries.map((e) => e.kind).join(", ")})`,
          "",
          "```ts",
          ...entries.map((e) => portable(e.text)),
          "```",
        ].join("\n"),
      )
      .join("\n\n");
    const header = [
      `# API report: \`${specifier}\``,
      "",
      `Generated by \`npm run api:report\` from \`${relative(root, source).replaceAll(sep, "/")}\`; do not edit.`,
      `${rows.length} exported names.`,
    ].join("\n");
    return {
      subpath,
      specifier,
      file: reportFileName(specifier),
      names: rows.map((r) => r.name),
      text: `${header}\n\n${body}\n`,
    };
  });
  return entries.map((entry) => reports.find((report) => report.subpath === entry.subpath));
}

/** The committed report files (name → text). */
export function committedReports() {
  let files = [];
  try {
    files = readdirSync(reportDir).filter((f) => f.endsWith(".api.md"));
  } catch {
    return new Map();
  }
  return new Map(files.map((f) => [f, readFileSync(join(reportDir, f), "utf8")]));
}

function writeReports() {
  const started = performance.now();
  const reports = apiReports();
  mkdirSync(reportDir, { recursive: true });
  const fresh = new Set(reports.map((r) => r.file));
  for (const stale of committedReports().keys()) if (!fresh.has(stale)) rmSync(join(reportDir, stale));
  for (const report of reports) writeFileSync(join(reportDir, report.file), report.text);
  const width = Math.max(...reports.map((r) => r.specifier.length));
  for (const report of reports) console.log(`${report.specifier.padEnd(width)}  ${report.names.length}`);
  const total = reports.reduce((n, r) => n + r.names.length, 0);
  console.log(
    `${"total".padEnd(width)}  ${total}\nwrote ${reports.length} files to api/ in ${Math.round(performance.now() - started)} ms`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeReports();
