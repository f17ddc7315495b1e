import { type CompiledSpec, compileSpec, type ProgramSpec } from "./options.js";

/**
 * The allow-list: programs that only read, with every option known to only read. An option not in a
 * program's table makes the command "may change something" (it asks unless a rule allows it).
 */
const SPECS: Record<string, ProgramSpec> = {
  ls: {
    flags:
      "-a -A -l -h -R -r -t -S -1 -d -F -i -s -n -G -g -o -p -c -u -x -C -m -Q -N -b -B -k -L -H -U -v -X " +
      "--all --almost-all --human-readable --recursive --reverse --directory --classify --inode --size " +
      "--no-group --numeric-uid-gid --group-directories-first --color --color= --full-time --dereference",
    valued:
      "-I -w --ignore --hide --sort --time-style --format --indicator-style --width --block-size --time",
    operands: "paths",
  },
  cat: {
    flags:
      "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends " +
      "--show-tabs --show-nonprinting",
    operands: "paths",
  },
  head: {
    flags: "-q -v -z --quiet --silent --verbose --zero-terminated",
    valued: "-c -n --bytes --lines",
    numeric: true,
    operands: "paths",
  },
  tail: {
    flags: "-q -v -z -f -F -r --quiet --silent --verbose --zero-terminated --follow --follow= --retry",
    valued: "-c -n -s --bytes --lines --sleep-interval --pid --max-unchanged-stats",
    numeric: true,
    operands: "paths",
  },
  wc: {
    // --files0-from is left out: it reads files named inside a file, which no check sees.
    flags: "-c -m -l -w -L --bytes --chars --lines --words --max-line-length",
    operands: "paths",
  },
  stat: {
    flags: "-L -f -t --dereference --file-system --terse",
    valued: "-c --format --printf",
    operands: "paths",
  },
  file: {
    flags: "-b -i -L -h -z -s -k -N -E --mime --mime-type --mime-encoding --brief --keep-going",
    // -m/--magic-file is left out: given a directory, file reads every file in it as magic and
    // prints their lines in its warnings.
    operands: "paths",
  },
  tree: {
    flags: "-a -d -l -f -i -q -N -p -u -g -s -h -D -F -r -t -C -n -x --noreport --dirsfirst --du",
    valued: "-L -P -I --filelimit --charset --sort",
    writesPath: "-o",
    operands: "paths",
  },
  du: {
    flags:
      "-a -b -c -h -k -m -s -x -L -P -S -l --all --bytes --total --human-readable --summarize " +
      "--apparent-size --dereference --one-file-system --si",
    valued: "-d -B -t --max-depth --exclude --block-size --threshold --time --time-style",
    readsPath: "-X --exclude-from",
    operands: "paths",
  },
  df: {
    flags:
      "-a -h -H -i -k -l -P -T --all --total --human-readable --si --inodes --local --portability --print-type",
    valued: "-t -x -B --type --exclude-type --output --block-size",
    operands: "paths",
  },
  diff: {
    flags:
      "-u -c -q -s -r -N -a -b -w -B -i -y -e -n -t -T -p -d -E -Z --brief --report-identical-files " +
      "--recursive --new-file --unidirectional-new-file --side-by-side --ignore-case --ignore-all-space " +
      "--ignore-space-change --ignore-blank-lines --text --no-dereference --strip-trailing-cr " +
      "--suppress-common-lines --expand-tabs --initial-tab --minimal --speed-large-files --show-c-function " +
      "--unified --unified= --context --context= --color --color= --normal --left-column",
    valued:
      "-U -C -x -I -W -S -F --exclude --ignore-matching-lines --width --label --starting-file --tabsize",
    readsPath: "-X --exclude-from --from-file --to-file",
    operands: "paths",
  },
  cmp: {
    flags: "-b -l -s --print-bytes --verbose --quiet --silent",
    valued: "-i -n --ignore-initial --bytes",
    operands: "paths",
  },
  nl: { flags: "-p --no-renumber", valued: "-b -d -f -h -i -l -n -s -v -w", operands: "paths" },
  cut: {
    flags: "-s -n -z --complement --only-delimited --zero-terminated",
    valued: "-b -c -f -d --bytes --characters --fields --delimiter --output-delimiter",
    operands: "paths",
  },
  realpath: {
    flags:
      "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero",
    valued: "--relative-to --relative-base",
    operands: "paths",
  },
  readlink: { flags: "-f -e -m -n -q -s -v -z --canonicalize --no-newline --verbose", operands: "paths" },
  basename: { flags: "-a -z --multiple --zero", valued: "-s --suffix", operands: "text" },
  dirname: { flags: "-z --zero", operands: "text" },
  echo: { anyOption: true, operands: "text" },
  printf: { operands: "text" },
  pwd: { flags: "-L -P", operands: "text" },
  true: { anyOption: true, operands: "text" },
  false: { anyOption: true, operands: "text" },
  whoami: { operands: "text" },
  id: { flags: "-u -g -G -n -r -z --user --group --groups --name --real", operands: "text" },
  groups: { operands: "text" },
  uname: {
    flags:
      "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version --machine",
    operands: "text",
  },
  nproc: { flags: "--all", valued: "--ignore", operands: "text" },
  arch: { operands: "text" },
  uptime: { flags: "-p -s --pretty --since", operands: "text" },
  which: { flags: "-a -s", operands: "text" },
  type: { flags: "-a -t -p -P -f", operands: "text" },
  whereis: { flags: "-b -m -s -u -l", operands: "text" },
  seq: { flags: "-w --equal-width", valued: "-s -f --separator --format", numeric: true, operands: "text" },
  sleep: { operands: "text" },
  test: { anyOption: true, operands: "text" },
  "[": { anyOption: true, operands: "text" },
  date: {
    flags: "-u -R -I --utc --universal --rfc-email --iso-8601 --iso-8601= --rfc-3339=",
    valued: "-d --date",
    readsPath: "-r -f --reference --file",
    unsafe: "-s --set",
    operands: "text",
  },
  hostname: {
    flags:
      "-f -s -i -I -d -a -A -y -v --fqdn --long --short --ip-address --all-ip-addresses --domain --alias",
    unsafe: "-F -b --file --boot",
    operands: "text",
  },
  grep: {
    flags:
      "-i -v -n -r -R -l -L -c -o -q -s -w -x -E -F -G -P -h -H -b -a -I -z -Z -U -T " +
      "--ignore-case --no-ignore-case --invert-match --line-number --recursive --dereference-recursive " +
      "--files-with-matches --files-without-match --count --only-matching --quiet --silent --word-regexp " +
      "--line-regexp --extended-regexp --fixed-strings --basic-regexp --perl-regexp --no-filename " +
      "--with-filename --byte-offset --text --null --null-data --no-messages --binary --line-buffered " +
      "--initial-tab --color --color= --colour --colour=",
    valued:
      "-A -B -C -m -e -d -D --after-context --before-context --context --max-count --include --exclude " +
      "--exclude-dir --label --binary-files --devices --directories --regexp",
    readsPath: "-f --file --exclude-from",
    numeric: true,
    operands: "patternThenPaths",
  },
  rg: {
    flags:
      "-i -s -S -v -w -x -n -N -l -c -o -F -u -L -H -I -a -U -P -0 -. -p -b -q " +
      "--hidden --no-ignore --ignore-case --smart-case --case-sensitive --count --count-matches --files " +
      "--files-with-matches --files-without-match --fixed-strings --follow --invert-match --json " +
      "--line-number --no-line-number --no-heading --heading --no-filename --with-filename --only-matching " +
      "--multiline --multiline-dotall --pcre2 --vimgrep --trim --stats --column --no-messages --null " +
      "--text --no-config --pretty --byte-offset --quiet --word-regexp --line-regexp --no-ignore-vcs " +
      "--type-list --passthru --unrestricted --no-require-git",
    valued:
      "-A -B -C -m -g -t -T -M -j -r -E -e -d --glob --iglob --type --type-not --type-add --max-count " +
      "--max-depth --max-filesize --max-columns --threads --replace --encoding --sort --sortr --color " +
      "--colors --context-separator --path-separator --after-context --before-context --context --regexp",
    readsPath: "-f --file --ignore-file",
    unsafe: "--pre --pre-glob -z --search-zip --hostname-bin",
    numeric: true,
    operands: "patternThenPaths",
  },
  jq: {
    flags:
      "-r -c -n -s -e -S -j -a -C -M -R --raw-output --compact-output --null-input --slurp --exit-status " +
      "--sort-keys --tab --join-output --ascii-output --raw-input --color-output --monochrome-output",
    valued: "--indent",
    readsPath: "-f --from-file",
    operands: "patternThenPaths",
  },
  sort: {
    flags:
      "-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z --reverse --numeric-sort --unique --ignore-case " +
      "--human-numeric-sort --version-sort --general-numeric-sort --month-sort --random-sort --stable " +
      "--merge --check --ignore-leading-blanks --dictionary-order --ignore-nonprinting --zero-terminated",
    valued: "-k -t -S --key --field-separator --buffer-size --parallel --sort",
    readsPath: "--random-source",
    writesPath: "-o --output -T --temporary-directory",
    operands: "paths",
  },
  uniq: {
    flags: "-c -d -D -i -u -z --count --repeated --ignore-case --unique --zero-terminated",
    valued: "-f -s -w --skip-fields --skip-chars --check-chars",
    operands: "paths",
  },
  // Its program is checked for system(), pipes, getline, output redirection, ENVIRON and ARGV first.
  awk: {
    flags:
      "-b -c -N -O -P -r -s -S --sandbox --posix --traditional --re-interval --characters-as-bytes " +
      "--use-lc-numeric --optimize --no-optimize",
    valued: "-F -v --field-separator --assign",
    operands: "patternThenPaths",
  },
  md5sum: {
    flags: "-b -t -c -w -z --check --quiet --status --strict --tag --binary --text",
    operands: "paths",
  },
};
for (const alias of ["sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"]) {
  SPECS[alias] = SPECS.md5sum!;
}
SPECS.egrep = SPECS.grep!;
for (const alias of ["gawk", "mawk", "nawk"]) SPECS[alias] = SPECS.awk!;
SPECS.fgrep = SPECS.grep!;

const COMPILED = new Map<string, CompiledSpec>(
  Object.entries(SPECS).map(([name, spec]) => [name, compileSpec(spec)]),
);

/** The option table of a read-only program, or undefined when the program is not on the allow-list. */
export function readOnlyProgram(name: string): CompiledSpec | undefined {
  return COMPILED.get(name);
}
