/**
 * `find`, read the way GNU find reads it: leading options (`-L`, `-D x`, `-O2`), then the starting
 * points, then an expression. Every predicate must be known; unknown ones make it not read-only.
 */
export interface FindReading {
  /** Starting points and files predicates read (`-newer f`, `-files0-from f`). */
  paths: string[];
  /** Every predicate is known. */
  known: boolean;
  /** It writes or deletes (`-delete`, `-fprint f`, `-fls f`): not read-only. */
  writes: boolean;
  /** Commands it runs (`-exec cmd {} ;`), with the predicate that runs them. */
  runs: { predicate: string; command: string[] }[];
}

/** Predicates without an argument. */
const BARE = new Set(
  (
    "-a -and -o -or -not ! ( ) , -print -print0 -ls -prune -quit -true -false -empty -readable " +
    "-writable -executable -nouser -nogroup -depth -d -mount -xdev -noleaf -daystart -follow " +
    "-ignore_readdir_race -noignore_readdir_race -warn -nowarn -help -version"
  ).split(" "),
);
/** Predicates taking one argument (a pattern, number or name, not a file). */
const VALUED = new Set(
  (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype -size " +
    "-mtime -mmin -atime -amin -ctime -cmin -perm -user -group -uid -gid -links -inum -lname -ilname " +
    "-maxdepth -mindepth -used -fstype -context -printf"
  ).split(" "),
);
/** Predicates taking a file the command reads. */
const READS = new Set(["-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"]);
/** Predicates that write a file named by their argument, or delete. */
const WRITES = new Set(["-fprint", "-fprint0", "-fls", "-fprintf"]);
const RUNS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

export function readFind(args: readonly string[]): FindReading {
  const reading: FindReading = { paths: [], known: true, writes: false, runs: [] };
  let index = 0;
  // Leading options: -H -L -P, -D debugopts, -O level.
  while (index < args.length && /^-(H|L|P|D|O\d*)$/.test(args[index]!)) {
    if (args[index] === "-D") index++;
    index++;
  }
  while (index < args.length && !/^[-!(),]/.test(args[index]!)) reading.paths.push(args[index++]!);
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (RUNS.has(arg)) {
      let end = index + 1;
      while (end < args.length && args[end] !== ";" && args[end] !== "+") end++;
      reading.runs.push({ predicate: arg, command: args.slice(index + 1, end) });
      index = end;
    } else if (arg === "-delete") {
      reading.writes = true;
    } else if (WRITES.has(arg)) {
      reading.writes = true;
      reading.paths.push(...args.slice(index + 1, index + 2));
      index += arg === "-fprintf" ? 2 : 1;
    } else if (READS.has(arg) || /^-newer[amcBt]{2}$/.test(arg)) {
      if (!/^-newer[amcB]t$/.test(arg)) reading.paths.push(...args.slice(index + 1, index + 2));
      index++;
    } else if (VALUED.has(arg)) {
      index++;
    } else if (!BARE.has(arg)) {
      reading.known = false;
    }
  }
  return reading;
}
