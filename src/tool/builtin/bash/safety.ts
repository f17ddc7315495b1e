import { ELEVATE, EVALUATORS, SHELLS } from "../bash-commands.js";

/** Programs that change the machine itself: power, clock, host name, network, mounts, kernel. */
const MACHINE_STATE = new Set([
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "init",
  "telinit",
  "hwclock",
  "timedatectl",
  "ntpdate",
  "chronyc",
  "hostnamectl",
  "ifconfig",
  "route",
  "iptables",
  "ip6tables",
  "nft",
  "nmcli",
  "iwconfig",
  "sysctl",
  "mount",
  "umount",
  "swapon",
  "swapoff",
  "modprobe",
  "insmod",
  "rmmod",
]);
const DISK_WRITERS = new Set(["dd", "fdisk", "sfdisk", "parted", "wipefs", "shred", "mkswap", "format"]);
/** Builtins that print every variable (API keys included) when given no names. */
const ENVIRONMENT_DUMPS = new Set(["env", "printenv"]);
const SYSTEM_DIRECTORIES =
  /^\/(bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library|Applications)?\/?\*?$/;

/**
 * Why a person must confirm this command whatever the rules say, judged on its program (as the
 * shell resolves it, wrappers removed) and its arguments; empty when nothing stands out.
 */
export function safetyReasons(program: string, args: readonly string[]): string[] {
  const reasons: string[] = [];
  const flags = args.filter((arg) => arg.startsWith("-") && arg !== "-" && arg !== "--");
  const has = (short: string, long: string) =>
    flags.some((flag) => flag === long || (/^-[a-zA-Z]+$/.test(flag) && flag.includes(short)));
  const operands = args.filter((arg) => !arg.startsWith("-") || arg === "-");

  if (ELEVATE.has(program)) reasons.push(`${program} runs a command with elevated privileges`);
  if (EVALUATORS.has(program)) reasons.push(`${program} runs text or a file as shell code`);
  if (SHELLS.has(program) && args.some((arg) => /^-\w*c/.test(arg)))
    reasons.push(`${program} -c runs text as shell code`);
  if (DISK_WRITERS.has(program) || program.startsWith("mkfs"))
    reasons.push(`${program} can destroy disks or data`);
  if (MACHINE_STATE.has(program)) reasons.push(`${program} changes the state of the machine`);
  if (
    program === "ip" &&
    operands.some((arg) => /^(add|del|delete|set|change|replace|flush|append)$/.test(arg))
  ) {
    reasons.push("ip changes the network configuration");
  }
  if (ENVIRONMENT_DUMPS.has(program))
    reasons.push(`${program} prints environment variables, which may hold secrets`);
  if (isVariableDump(program, args))
    reasons.push(`${program} prints shell variables, which may hold secrets`);
  if (program === "alias" && operands.some((arg) => arg.includes("="))) {
    reasons.push("alias changes what a command name runs");
  }
  if (program === "trap" && operands.length > 1) reasons.push("trap runs code when a signal arrives");
  if (program === "hash" && has("p", "-p")) reasons.push("hash -p changes what a command name runs");
  if (program === "date" && (has("s", "--set") || operands.some((arg) => !arg.startsWith("+")))) {
    reasons.push("date with a time sets the system clock");
  }
  if (program === "hostname" && (operands.length > 0 || has("F", "--file") || has("b", "--boot"))) {
    reasons.push("hostname with a name changes the host name");
  }
  if (program === "kill") reasons.push(...killReasons(args));
  if (extractsArchive(program, args))
    reasons.push(
      `${program} extracts an archive, whose members may write any path (.git/hooks, .envrc) the text does not name`,
    );
  if ((program === "rm" || program === "rmdir") && operands.some(isRootLike)) {
    reasons.push(`${program} targets the root, home or a system directory`);
  }
  if (program === "rm" && (has("r", "--recursive") || has("R", "--recursive")) && has("f", "--force")) {
    reasons.push("rm -rf deletes recursively without asking");
  }
  if ((program === "chmod" || program === "chown" || program === "chgrp") && operands.some(isRootLike)) {
    reasons.push(`${program} changes the root, home or a system directory`);
  }
  if (program === "chmod" && args.some((arg) => /^0?777$|^(a|o|ugo)\+rwx$/.test(arg))) {
    reasons.push("chmod 777 makes files writable by everyone");
  }
  if (program === "chown" && has("R", "--recursive")) reasons.push("chown -R changes ownership recursively");
  return reasons;
}

/**
 * Whether it unpacks an archive into the file system (not to stdout, not a listing): the member
 * names come from the archive, so what it writes cannot be read from the command.
 */
function extractsArchive(program: string, args: readonly string[]): boolean {
  const option = (short: string, long: RegExp) =>
    args.some((arg) => long.test(arg) || (/^-[a-zA-Z]+$/.test(arg) && arg.includes(short)));
  switch (program) {
    case "tar":
    case "bsdtar":
    case "gtar": {
      // Old-style first word: `tar xf a.tar`; getopt_long takes a unique prefix (`--extr`).
      const first = args[0] ?? "";
      const toStdout = option("O", /^--to-stdout$/);
      return (
        !toStdout && ((/^[a-zA-Z]+$/.test(first) && first.includes("x")) || option("x", /^--(extr|get)/))
      );
    }
    case "unzip":
      return !args.some((arg) => /^-[a-zA-Z]*[lptvzZ]/.test(arg));
    case "7z":
    case "7za":
    case "7zr":
      return args.some((arg) => arg === "x" || arg === "e");
    case "cpio":
      return option("i", /^--extr/);
    case "ar":
      return /^-?[a-zA-Z]*x/.test(args[0] ?? "");
    case "pax":
      return option("r", /^$/);
    default:
      return false;
  }
}

function isVariableDump(program: string, args: readonly string[]): boolean {
  const onlyOptions = args.every((arg) => /^-[a-zA-Z]+$/.test(arg));
  switch (program) {
    case "set":
      return args.length === 0;
    case "export":
      return args.length === 0 || args.every((arg) => arg === "-p");
    case "declare":
    case "typeset":
      // `declare -p NAME` prints that variable's value too.
      return (
        args.length === 0 ||
        args.some((arg) => /^-[a-zA-Z]*p/.test(arg)) ||
        (onlyOptions && args.some((arg) => arg.includes("x")))
      );
    case "compgen":
      return args.some((arg) => /^-[a-zA-Z]*[ve]/.test(arg));
    default:
      return false;
  }
}

/** `/`, `~`, `/*`, `.`, `..`, `*` and the top-level system directories. */
function isRootLike(path: string): boolean {
  const trimmed = path.replace(/\/+$/, "") || "/";
  if (/^(~|~\/\*?|\$HOME\/?|\*|\.|\.\.|\.\/\*?|\.\.\/\*?)$/.test(path)) return true;
  return SYSTEM_DIRECTORIES.test(trimmed) || SYSTEM_DIRECTORIES.test(path);
}

/** kill of pid 1 (init), 0 (the whole process group) or a negative pid (every process in a group). */
function killReasons(args: readonly string[]): string[] {
  let signalSeen = false;
  let endOfOptions = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!endOfOptions && arg === "--") {
      endOfOptions = true;
      continue;
    }
    if (!endOfOptions && !signalSeen && arg.startsWith("-")) {
      if (arg === "-s" || arg === "-n") index++;
      signalSeen = true;
      if (arg === "-l" || arg === "-L") return [];
      continue;
    }
    if (/^-\d+$/.test(arg)) return ["kill of a negative pid signals a whole process group"];
    if (/^(1|0)$/.test(arg)) return [`kill of pid ${arg} signals init or every process in the group`];
  }
  return [];
}
